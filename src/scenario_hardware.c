/* scenario_hardware.c: the hardware section: the GPU (a name from the
 * table, or an inline mapping with its own peaks), the count, the node
 * (GPUs per node and link rates, for the step-time model), the MFU
 * (predicted unless given), price, currency, PUE, the per-GPU memory
 * overhead, and the failure rate, checkpoint bandwidth and restart time;
 * and the checks of the GPU against the training precision. */
#include "scenario_sections.h"

#include <ctype.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/goodput.h"
#include "trainbudget/gpus.h"

static const char *const S_keys[] = {
	"gpu", "count", "mfu", "price_per_gpu_hour", "currency", "pue", "overhead",
	"failures_per_node_day", "checkpoint_bandwidth", "restart_time", "node",
	"reservation", "node_power", "power_limit", "cudnn",
};
static const char *const S_gpu_keys[] = {
	"name", "label", "memory", "bf16", "fp16", "fp8", "fp4", "tf32", "fp32",
	"bandwidth", "tdp", "sms",
};
static const char *const S_node_keys[] = { "gpus", "nvlink", "network" };
static const tb_scenario_subsection S_subs[] = {
	{ "gpu", S_gpu_keys, TB_N(S_gpu_keys), "a GPU field such as memory or bf16" },
	{ "node", S_node_keys, TB_N(S_node_keys), "a node field: gpus, nvlink or network" },
};

static void S_lower(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

/* Prepares a unit string for the units parser: drops a trailing "/s"
 * (bandwidth) or "W" (power) the user may write. */
static const char *S_strip_unit(const char *s, const char *suffix, char *buf, size_t cap)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n >= k && n < cap && strcmp(s + n - k, suffix) == 0) {
		memcpy(buf, s, n - k);
		buf[n - k] = '\0';
		return buf;
	}
	return s;
}

/* A quantity that may carry a unit the units parser does not know, such as
 * "989T FLOP/s" or "700W": the suffix is dropped first.  Zero is allowed (a
 * card without that format). */
static bool S_quant_unit(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                         const char *suffix, tb_yaml_qkind kind, const char *expected,
                         double max, double *out)
{
	char buf[96];
	tb_yaml_node tmp = *n;
	if (n->kind == TB_YAML_SCALAR)
		tmp.str = (char *)S_strip_unit(n->str, suffix, buf, sizeof buf);
	return tb_yaml_quant(c, &tmp, name, kind, expected, 0, max, out);
}

static bool S_inline_gpu(tb_yaml_ctx *c, const tb_yaml_node *g, tb_gpu *gpu)
{
	memset(gpu, 0, sizeof *gpu);
	bool ok = true;
	const tb_yaml_node *n;
	if ((n = tb_yaml_get(g, "name"))) {
		char *s = tb_yaml_string(c, n, "hardware.gpu.name", sizeof gpu->name - 1, true);
		if (s)
			memcpy(gpu->name, s, strlen(s) + 1);
		else
			ok = false;
		free(s);
	} else {
		tb_yaml_err(c, g, "missing key 'hardware.gpu.name'; expected a name for the inline GPU");
		ok = false;
	}
	if ((n = tb_yaml_get(g, "label"))) {
		char *s = tb_yaml_string(c, n, "hardware.gpu.label", sizeof gpu->label - 1, true);
		if (s)
			memcpy(gpu->label, s, strlen(s) + 1);
		else
			ok = false;
		free(s);
	} else {
		/* a name is at most 31 bytes: this fits the 64 of the label */
		snprintf(gpu->label, sizeof gpu->label, "%s (inline)", gpu->name);
	}
	snprintf(gpu->source, sizeof gpu->source, "inline in the scenario file");
	snprintf(gpu->memory_source, sizeof gpu->memory_source, "hardware.gpu.memory");
	if ((n = tb_yaml_get(g, "memory"))) {
		if (!tb_yaml_quant(c, n, "hardware.gpu.memory", TB_YAML_Q_BYTES, "a size such as 80GB or 80GiB", 1e6, 1e15, &gpu->memory_bytes))
			ok = false;
	} else {
		tb_yaml_err(c, g, "missing key 'hardware.gpu.memory'; expected the GPU's memory such as 80GB");
		ok = false;
	}
	static const char *const peak_keys[TB_DTYPE_COUNT] = { "fp32", "tf32", "bf16", "fp16", "fp8", "fp4" };
	for (int i = 0; i < TB_DTYPE_COUNT; i++) {
		if (!(n = tb_yaml_get(g, peak_keys[i])))
			continue;
		char name[32];
		snprintf(name, sizeof name, "hardware.gpu.%s", peak_keys[i]);
		if (!S_quant_unit(c, n, name, "FLOP/s", TB_YAML_Q_COUNT, "dense FLOP/s such as 989T or 989e12", 1e18, &gpu->peak_flops[i]))
			ok = false;
	}
	if ((n = tb_yaml_get(g, "bandwidth")) &&
	    !S_quant_unit(c, n, "hardware.gpu.bandwidth", "/s", TB_YAML_Q_BYTES, "bytes per second such as 3.35TB", 1e15, &gpu->bandwidth_bytes_per_s))
		ok = false;
	if ((n = tb_yaml_get(g, "tdp")) &&
	    !S_quant_unit(c, n, "hardware.gpu.tdp", "W", TB_YAML_Q_NUMBER, "watts such as 700", 1e5, &gpu->tdp_w))
		ok = false;
	if ((n = tb_yaml_get(g, "sms")) && !tb_yaml_int(c, n, "hardware.gpu.sms", 1, 100000, &gpu->sms))
		ok = false;
	return ok;
}

static void S_load_gpu(tb_yaml_ctx *c, const tb_yaml_node *root, const tb_yaml_node *hw, tb_gpu *gpu, bool *ok)
{
	const tb_yaml_node *g = hw ? tb_yaml_get(hw, "gpu") : NULL;
	if (g && g->kind == TB_YAML_MAP) {
		if (!S_inline_gpu(c, g, gpu))
			*ok = false;
		return;
	}
	const char *name = "h100-sxm";
	if (g) {
		name = tb_yaml_scalar(c, g, "hardware.gpu", "a GPU name from `trainbudget gpus` or an inline mapping");
		if (!name) {
			*ok = false;
			return;
		}
	}
	char lower[64];
	S_lower(lower, sizeof lower, name);
	const tb_gpu *found = tb_gpus_find(name);
	if (!found)
		found = tb_gpus_find(lower);
	if (found) {
		*gpu = *found;
		return;
	}
	const char *names[128];
	size_t n = 0;
	for (size_t i = 0; i < tb_gpus_count() && n < TB_N(names); i++)
		names[n++] = tb_gpus_at(i)->name;
	const char *sugg = tb_diags_suggest(lower, names, n);
	char sh[48];
	if (!g)
		tb_yaml_err(c, hw ? tb_yaml_get_key(root, "hardware") : root,
		            "the default GPU 'h100-sxm' is not in the GPU table; expected hardware.gpu");
	else if (sugg)
		tb_yaml_err(c, g, "unknown GPU '%s'; did you mean '%s'?", tb_yaml_show(name, sh), sugg);
	else
		tb_yaml_err(c, g, "unknown GPU '%s'; expected a name from `trainbudget gpus` or an inline mapping", tb_yaml_show(name, sh));
	*ok = false;
}

/* The node's figures; each 0 (absent) takes the GPU table's. */
static void S_load_node(tb_yaml_ctx *c, const tb_yaml_node *hw, tb_node *node, bool *ok)
{
	memset(node, 0, sizeof *node);
	const tb_yaml_node *nd = tb_yaml_child_map(hw, "node");
	if (!nd) {
		if (tb_yaml_map_broken(hw, "node")) {
			tb_yaml_err(c, tb_yaml_get(hw, "node"), "hardware.node is %s; expected a mapping of "
			            "gpus, nvlink and network", tb_yaml_kind_name(tb_yaml_get(hw, "node")));
			*ok = false;
		}
		return;
	}
	const tb_yaml_node *n;
	if ((n = tb_yaml_get(nd, "gpus")) &&
	    !tb_yaml_int(c, n, "hardware.node.gpus", 1, 1000000, &node->gpus))
		*ok = false;
	if ((n = tb_yaml_get(nd, "nvlink")) &&
	    !tb_yaml_quant(c, n, "hardware.node.nvlink", TB_YAML_Q_RATE,
	                   "bytes per second per GPU, one direction, such as 450GB/s", 1e6, 1e15,
	                   &node->nvlink_bytes_per_s))
		*ok = false;
	if ((n = tb_yaml_get(nd, "network")) &&
	    !tb_yaml_quant(c, n, "hardware.node.network", TB_YAML_Q_RATE,
	                   "a rate per GPU, one direction, such as 400Gbit/s or 50GB/s", 1e6, 1e15,
	                   &node->network_bytes_per_s))
		*ok = false;
}

/* Absent or `predicted`: the step-time model's MFU, with the default range
 * kept for a run it cannot predict. */
static void S_load_mfu(tb_yaml_ctx *c, const tb_yaml_node *n, double mfu[3], bool *predicted,
                       bool *ok)
{
	mfu[0] = 0.25;
	mfu[1] = 0.35;
	mfu[2] = 0.45;
	*predicted = !n || (n->kind == TB_YAML_SCALAR && n->str && strcmp(n->str, "predicted") == 0);
	if (*predicted)
		return;
	const char *expected = "`predicted` or a fraction in (0, 1] such as 0.35 or 35%";
	double v[3] = { 0, 0, 0 };
	size_t count = 0;
	if (n->kind == TB_YAML_SEQ) {
		if (n->n < 2 || n->n > 3) {
			tb_yaml_err(c, n, "hardware.mfu has %zu values; expected a number, [low, high] or [low, most likely, high]", n->n);
			*ok = false;
			return;
		}
		count = n->n;
		for (size_t i = 0; i < count; i++) {
			if (!tb_yaml_quant(c, n->vals[i], "hardware.mfu", TB_YAML_Q_FRACTION, expected, 0, 0, &v[i])) {
				*ok = false;
				return;
			}
		}
	} else {
		if (!tb_yaml_quant(c, n, "hardware.mfu", TB_YAML_Q_FRACTION, expected, 0, 0, &v[0])) {
			*ok = false;
			return;
		}
		count = 1;
	}
	for (size_t i = 0; i < count; i++) {
		if (!(v[i] > 0)) {
			tb_yaml_err(c, count == 1 ? n : n->vals[i], "hardware.mfu '%s' is outside (0, 1]; expected %s",
			            count == 1 ? n->str : n->vals[i]->str, expected);
			*ok = false;
			return;
		}
		/* No run has been that slow: a smaller MFU is a typo (a percent
		 * read as a fraction, an exponent), and past it the time and cost
		 * leave the range where they mean anything. */
		if (v[i] < TB_MFU_FLOOR) {
			tb_yaml_err(c, count == 1 ? n : n->vals[i], "hardware.mfu '%s' is below %g (0.01%% of the "
			            "peak), which no run is; expected a fraction such as 0.35 (published runs "
			            "reach 0.2 to 0.6)", count == 1 ? n->str : n->vals[i]->str, TB_MFU_FLOOR);
			*ok = false;
			return;
		}
	}
	if (count == 1) {
		mfu[0] = mfu[1] = mfu[2] = v[0];
	} else if (count == 2) {
		mfu[0] = v[0];
		mfu[2] = v[1];
		mfu[1] = (v[0] + v[1]) / 2;
	} else {
		mfu[0] = v[0];
		mfu[1] = v[1];
		mfu[2] = v[2];
	}
	if (mfu[0] > mfu[2]) {
		tb_yaml_err(c, n, "hardware.mfu range [%g, %g] is reversed; expected [low, high] with low <= high", mfu[0], mfu[2]);
		*ok = false;
	} else if (mfu[1] < mfu[0] || mfu[1] > mfu[2]) {
		tb_yaml_err(c, n, "hardware.mfu most likely value %g lies outside [%g, %g]; expected [low, most likely, high] in order",
		            mfu[1], mfu[0], mfu[2]);
		*ok = false;
	}
}

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_hardware *h = &in->hardware;
	const tb_yaml_node *hw = tb_yaml_get_map(c, root, "hardware");
	const tb_yaml_node *hwkey = tb_yaml_get_key(root, "hardware");
	S_load_gpu(c, root, hw, &h->gpu, &ok);
	if (hw && (n = tb_yaml_get(hw, "count"))) {
		if (!tb_yaml_int(c, n, "hardware.count", 1, 100000000, &h->count))
			ok = false;
	} else {
		if (!tb_yaml_map_broken(root, "hardware"))
			tb_yaml_err(c, hw ? hwkey : root, "missing key 'hardware.count'; expected the number of GPUs such as 64");
		ok = false;
	}
	S_load_mfu(c, hw ? tb_yaml_get(hw, "mfu") : NULL, h->mfu, &h->mfu_predicted, &ok);
	if (hw)
		S_load_node(c, hw, &h->node, &ok);
	else
		memset(&h->node, 0, sizeof h->node);
	sc->gpu_assumed = !hw || !tb_yaml_get(hw, "gpu");
	sc->price_assumed = !hw || !tb_yaml_get(hw, "price_per_gpu_hour");
	h->price_per_gpu_hour = 2.00;
	snprintf(h->currency, sizeof h->currency, "USD");
	h->pue = 1.0;
	h->overhead_bytes = 2.0 * 1073741824.0;
	h->failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY;
	h->checkpoint_bytes_per_s = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE;
	h->restart_s = TB_GOODPUT_RESTART_S;
	if (hw) {
		if ((n = tb_yaml_get(hw, "price_per_gpu_hour")) &&
		    !tb_yaml_quant(c, n, "hardware.price_per_gpu_hour", TB_YAML_Q_NUMBER, "a price per GPU-hour such as 2.50", 0, 1e6, &h->price_per_gpu_hour))
			ok = false;
		if ((n = tb_yaml_get(hw, "currency"))) {
			const char *s = tb_yaml_scalar(c, n, "hardware.currency", "a currency code such as USD or EUR");
			bool good = s && strlen(s) >= 1 && strlen(s) < sizeof h->currency;
			for (size_t i = 0; good && s[i]; i++)
				good = isalpha((unsigned char)s[i]) || s[i] == '$';
			if (good)
				snprintf(h->currency, sizeof h->currency, "%s", s);
			else {
				if (s) {
					char sh[48];
					tb_yaml_err(c, n, "hardware.currency '%s' is not a currency code; expected a code such as USD or EUR", tb_yaml_show(s, sh));
				}
				ok = false;
			}
		}
		if ((n = tb_yaml_get(hw, "pue"))) {
			if (!tb_yaml_quant(c, n, "hardware.pue", TB_YAML_Q_NUMBER, "a power usage effectiveness from 1 to 3 such as 1.2", DBL_MIN, 3, &h->pue))
				ok = false;
			else if (h->pue < 1) {
				tb_yaml_err(c, n, "hardware.pue '%s' is below 1; expected a power usage effectiveness from 1 to 3 such as 1.2", n->str);
				ok = false;
			}
		}
		if ((n = tb_yaml_get(hw, "overhead")) &&
		    !tb_yaml_quant(c, n, "hardware.overhead", TB_YAML_Q_BYTES, "a size such as 2GiB", 0, 1e15, &h->overhead_bytes))
			ok = false;
		if ((n = tb_yaml_get(hw, "failures_per_node_day")) &&
		    !tb_yaml_quant(c, n, "hardware.failures_per_node_day", TB_YAML_Q_NUMBER,
		                   "failures per node per day such as 0.0038 (0: none)", 0, 1000,
		                   &h->failures_per_node_day))
			ok = false;
		/* a rate as the node's links are: "1GB/s", "8Gbit/s" or "1GB"; never zero */
		if ((n = tb_yaml_get(hw, "checkpoint_bandwidth")) &&
		    !tb_yaml_quant(c, n, "hardware.checkpoint_bandwidth", TB_YAML_Q_RATE,
		                   "bytes per second per node such as 1GB/s", 1e6, 1e15,
		                   &h->checkpoint_bytes_per_s))
			ok = false;
		if ((n = tb_yaml_get(hw, "restart_time")) &&
		    !tb_yaml_quant(c, n, "hardware.restart_time", TB_YAML_Q_DURATION,
		                   "a duration such as 10min (0: an instant restart)", 0, 30 * 86400.0,
		                   &h->restart_s))
			ok = false;
		/* an hour at least: billing finer than that is paying as used */
		if ((n = tb_yaml_get(hw, "reservation")) &&
		    !tb_yaml_quant(c, n, "hardware.reservation", TB_YAML_Q_DURATION,
		                   "a booking such as 60 days, or a billing block such as 1h", 3600,
		                   100 * 365.25 * 86400, &h->reservation_s))
			ok = false;
		if ((n = tb_yaml_get(hw, "node_power"))) {
			if (!S_quant_unit(c, n, "hardware.node_power", "W", TB_YAML_Q_COUNT,
			                  "a node's draw at the wall such as 10.2kW", 1e7, &h->node_power_w))
				ok = false;
			else if (!(h->node_power_w >= 1)) {
				tb_yaml_err(c, n, "hardware.node_power '%s' is below 1 W; expected a node's draw "
				            "at the wall such as 10.2kW", n->str);
				ok = false;
			}
		}
		/* nvidia-smi -pl: a cap below the board's TDP slows the clocks */
		if ((n = tb_yaml_get(hw, "power_limit"))) {
			if (!S_quant_unit(c, n, "hardware.power_limit", "W", TB_YAML_Q_COUNT,
			                  "the GPUs' power limit such as 500W", 1e5, &h->power_limit_w))
				ok = false;
			else if (!(h->gpu.tdp_w > 0)) {
				tb_yaml_err(c, n, "hardware.power_limit with a GPU whose TDP is unknown; expected "
				            "hardware.gpu.tdp on the inline GPU, or no power limit");
				ok = false;
			} else if (!(h->power_limit_w >= 0.25 * h->gpu.tdp_w && h->power_limit_w <= h->gpu.tdp_w)) {
				tb_yaml_err(c, n, "hardware.power_limit '%s' is outside %.0f W to %.0f W; expected "
				            "a limit from a quarter of the GPU's TDP to its TDP", n->str,
				            0.25 * h->gpu.tdp_w, h->gpu.tdp_w);
				ok = false;
			}
		}
		/* the attention kernels' release (gpus.c's timings by version) */
		if ((n = tb_yaml_get(hw, "cudnn"))) {
			const char *s = tb_yaml_scalar(c, n, "hardware.cudnn", "a cuDNN release such as 9.21 or 9.13.1");
			if (!s)
				ok = false;
			else if (!(h->cudnn_version = tb_gpus_cudnn_parse(s))) {
				char b[48];
				tb_yaml_err(c, n, "hardware.cudnn '%s' is not a cuDNN release; expected a version "
				            "such as 9.21 or 9.13.1", tb_yaml_show(s, b));
				ok = false;
			}
		}
	}
	return ok;
}

const tb_scenario_section tb_scenario_section_hardware = {
	"hardware", S_keys, TB_N(S_keys), S_subs, TB_N(S_subs), S_load,
};

/* Whether the GPU has a peak for the precision.  fp32 training runs on
 * plain FP32 units where there are no TF32 tensor cores (V100); no other
 * format can stand in for a missing one. */
static bool S_supports(const tb_gpu *g, tb_precision p)
{
	tb_dtype dt = tb_precision_compute_dtype(p);
	return g->peak_flops[dt] > 0 || (dt == TB_DTYPE_TF32 && g->peak_flops[TB_DTYPE_FP32] > 0);
}

/* The precisions in the order the default falls back: bf16-mixed (the
 * documented default), fp16-mixed (V100: same bytes, loss scaling), fp32,
 * and fp8-mixed only for a card with nothing else. */
static const tb_precision S_fallback[] = {
	TB_PREC_BF16_MIXED, TB_PREC_FP16_MIXED, TB_PREC_FP32, TB_PREC_FP8_MIXED,
};

bool tb_scenario_check_hardware(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_training *t = &sc->inputs.training;
	tb_hardware *h = &sc->inputs.hardware;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *hw = tb_yaml_child_map(root, "hardware");
	const tb_yaml_node *gn = hw ? tb_yaml_get(hw, "gpu") : NULL;
	const char *gpu_label = h->gpu.label[0] ? h->gpu.label : h->gpu.name;
	const tb_yaml_node *prn = tr ? tb_yaml_get(tr, "precision") : NULL;
	bool grad_fits = tb_scenario_grad_fits(t->precision, t->grad_dtype);
	if (!S_supports(&h->gpu, t->precision) || (!prn && !grad_fits)) {
		tb_buf ok;
		tb_buf_init(&ok);
		static const tb_precision all[] = {
			TB_PREC_BF16_MIXED, TB_PREC_FP16_MIXED, TB_PREC_FP32, TB_PREC_BF16, TB_PREC_FP8_MIXED,
			TB_PREC_FP4_MIXED,
		};
		for (size_t i = 0; i < TB_N(all); i++)
			if (S_supports(&h->gpu, all[i]))
				tb_buf_printf(&ok, "%s%s", ok.len ? ", " : "", tb_precision_name(all[i]));
		tb_dtype dt = tb_precision_compute_dtype(t->precision);
		if (prn) {
			tb_yaml_err(c, prn, "GPU '%s' has no %s peak for training.precision %s; expected a precision the GPU supports%s%s",
			            h->gpu.name, tb_dtype_name(dt), tb_precision_name(t->precision),
			            ok.len ? ": " : "", ok.len ? ok.ptr : "");
		} else if (!ok.len) {
			/* Only an inline GPU can lack every peak. */
			tb_yaml_err(c, gn ? gn : root, "GPU '%s' has no peak FLOP/s for any precision; expected at least one of hardware.gpu.bf16, fp16, fp8, tf32 or fp32",
			            h->gpu.name);
		} else {
			/* The default precision follows the GPU and the gradients
			 * the user wrote (fp16 gradients mean fp16-mixed). */
			bool done = false;
			for (size_t i = 0; i < TB_N(S_fallback) && !done; i++) {
				if (!S_supports(&h->gpu, S_fallback[i]) ||
				    !tb_scenario_grad_fits(S_fallback[i], t->grad_dtype))
					continue;
				done = true;
				if (!S_supports(&h->gpu, t->precision))
					tb_scenario_adapt(sc, "training.precision", tb_precision_name(S_fallback[i]),
					                  tb_precision_name(t->precision),
					                  "%s has no %s peak", gpu_label, tb_dtype_name(dt));
				else
					tb_scenario_adapt(sc, "training.precision", tb_precision_name(S_fallback[i]),
					                  tb_precision_name(t->precision),
					                  "training.grad_dtype %s does not go with %s",
					                  tb_grad_dtype_name(t->grad_dtype), tb_precision_name(t->precision));
				t->precision = S_fallback[i];
			}
			if (!done) {
				const tb_yaml_node *gd = tr ? tb_yaml_get(tr, "grad_dtype") : NULL;
				tb_yaml_err(c, gd ? gd : root, "training.grad_dtype '%s' goes with no precision "
				            "GPU '%s' has a peak for (%s); expected a gradient dtype that does: fp32 "
				            "would work", tb_grad_dtype_name(t->grad_dtype), h->gpu.name, ok.ptr);
			}
		}
		tb_buf_release(&ok);
	}
	if (h->gpu.memory_bytes > 0 && h->overhead_bytes >= h->gpu.memory_bytes) {
		const tb_yaml_node *on = hw ? tb_yaml_get(hw, "overhead") : NULL;
		if (on) {
			char would[32];
			if (2.0 * 1073741824.0 < h->gpu.memory_bytes / 2)
				snprintf(would, sizeof would, "2GiB");
			else
				snprintf(would, sizeof would, "%.3gGB", h->gpu.memory_bytes / 4 / 1e9);
			tb_yaml_err(c, on, "hardware.overhead (%.3g GB) leaves nothing of the GPU's %.3g GB; "
			            "expected the CUDA context and allocator reserve, a few GiB: %s would work",
			            h->overhead_bytes / 1e9, h->gpu.memory_bytes / 1e9, would);
		} else {
			/* Only an inline GPU this small: the default reserve takes a
			 * quarter of its memory instead of all of it. */
			char value[32], deflt[32];
			snprintf(value, sizeof value, "%.3gGB", h->gpu.memory_bytes / 4 / 1e9);
			snprintf(deflt, sizeof deflt, "2GiB");
			tb_scenario_adapt(sc, "hardware.overhead", value, deflt,
			                  "2GiB would fill the GPU's %.3g GB: a quarter of its memory",
			                  h->gpu.memory_bytes / 1e9);
			h->overhead_bytes = h->gpu.memory_bytes / 4;
		}
	}
	return true;
}
