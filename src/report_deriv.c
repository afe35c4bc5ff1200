/* report_deriv.c: a budget's derivation record turned into a block for
 * people: the formula, the formula with the values put in, the result with
 * its unit, the source and the meaning of each symbol. */
#include "report_build.h"

#include <string.h>

#include "trainbudget/xalloc.h"

/* Keys the calculators document in docs/formulas.md; a key listed here but
 * absent from a budget (a count-only model has no activation derivation) is
 * "not computed", not a template error. */
static const char *const S_deriv_keys[] = {
	"chinchilla.compute", "chinchilla.loss", "chinchilla.loss_epoch",
	"chinchilla.optimal_params", "chinchilla.params_fit",
	"flops.fwd_attention_per_token", "flops.per_token_model", "flops.total_6nd",
	"flops.total_hardware", "flops.total_model", "goodput.checkpoint_bytes",
	"goodput.checkpoint_interval", "goodput.checkpoint_save", "goodput.fraction",
	"goodput.lost_per_failure", "goodput.mtbf", "goodput.seconds", "memory.activations",
	"memory.activations_per_layer", "memory.bytes_per_param",
	"memory.kv_cache_per_token", "memory.logits", "memory.max_params_fully_sharded",
	"memory.max_params_one_gpu", "memory.max_params_this_layout",
	"memory.model_states", "memory.per_gpu_total", "params.active",
	"perf.bubble", "perf.compute", "perf.dp_comm", "perf.hfu", "perf.layer_fwd",
	"perf.mfu", "perf.optimizer", "perf.pp_comm", "perf.recompute", "perf.step_s",
	"perf.tokens_per_s_per_gpu", "perf.tp_comm",
	"params.attention_per_layer", "params.mlp_per_layer", "params.total",
	"time.achieved_hfu", "time.achieved_mfu", "time.cost", "time.energy",
	"time.gpu_hours", "time.gpus_for_deadline", "time.gpus_for_deadline_compute",
	"time.seconds",
	"time.tokens_in_budget", "time.tokens_in_deadline",
};

#define S_NDERIV_KEYS (sizeof S_deriv_keys / sizeof S_deriv_keys[0])

static void S_num(tb_buf *o, double v)
{
	tb_rfmt(o, TB_RF_PLAIN, v, NULL);
}

static bool S_id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool S_id_char(char c) { return S_id_start(c) || (c >= '0' && c <= '9'); }

/* The calculators write "currency" for money; the reader sees the code. */
static const char *S_unit(const char *unit, const char *currency)
{
	if (unit && strcmp(unit, "currency") == 0)
		return currency && *currency ? currency : "USD";
	return unit;
}

void tb_rderiv_fill(tb_derivation *dv, const tb_deriv *src, const char *currency)
{
	const char *sym = src->sym ? src->sym : "";
	const char *formula = src->formula ? src->formula : "";
	int nv = src->nvars < 0 ? 0 : src->nvars > TB_DERIV_VARS ? TB_DERIV_VARS : src->nvars;
	dv->title = tb_xstrdup(src->title ? src->title : src->key ? src->key : "");
	dv->formula = tb_rstrf("%s = %s", sym, formula);
	tb_buf o;
	tb_buf_init(&o);
	tb_buf_puts(&o, sym);
	tb_buf_puts(&o, " = ");
	for (size_t i = 0; formula[i];) {
		if (!S_id_start(formula[i]) || (i > 0 && S_id_char(formula[i - 1]))) {
			tb_buf_putc(&o, formula[i++]);
			continue;
		}
		size_t j = i;
		while (S_id_char(formula[j]))
			j++;
		int hit = -1;
		for (int k = 0; k < nv; k++) {
			const char *vs = src->vars[k].sym;
			if (vs && strlen(vs) == j - i && memcmp(vs, formula + i, j - i) == 0) {
				hit = k;
				break;
			}
		}
		if (hit >= 0) {
			/* "6.74 × 10⁹" before ^ must be one operand: parenthesise it */
			tb_buf v;
			tb_buf_init(&v);
			S_num(&v, src->vars[hit].value);
			size_t k = j;
			while (formula[k] == ' ')
				k++;
			bool wrap = formula[k] == '^' &&
			            (strchr(v.ptr, ' ') || strstr(v.ptr, "\xC3\x97") || v.ptr[0] == '-');
			if (wrap)
				tb_buf_putc(&o, '(');
			tb_buf_puts(&o, v.ptr);
			if (wrap)
				tb_buf_putc(&o, ')');
			tb_buf_release(&v);
		} else
			tb_buf_put(&o, formula + i, j - i);
		i = j;
	}
	dv->substituted = tb_buf_detach(&o, NULL);
	tb_buf_puts(&o, sym);
	tb_buf_puts(&o, " = ");
	S_num(&o, src->result);
	const char *unit = S_unit(src->unit, currency);
	if (unit && *unit) {
		tb_buf_putc(&o, ' ');
		tb_buf_puts(&o, unit);
	}
	dv->result = tb_buf_detach(&o, NULL);
	dv->source = tb_xstrdup(src->source ? src->source : "");
	dv->nwhere = (size_t)nv;
	dv->where = tb_xcalloc(dv->nwhere ? dv->nwhere : 1, sizeof *dv->where);
	for (int k = 0; k < nv; k++) {
		const tb_deriv_var *v = &src->vars[k];
		tb_buf_puts(&o, v->sym ? v->sym : "?");
		tb_buf_puts(&o, ": ");
		tb_buf_puts(&o, v->meaning ? v->meaning : "");
		tb_buf_puts(&o, " = ");
		S_num(&o, v->value);
		const char *vu = S_unit(v->unit, currency);
		if (vu && *vu) {
			tb_buf_putc(&o, ' ');
			tb_buf_puts(&o, vu);
		}
		dv->where[k] = tb_buf_detach(&o, NULL);
	}
	tb_buf_release(&o);
}

const char *tb_rderiv_key(size_t i)
{
	return i < S_NDERIV_KEYS ? S_deriv_keys[i] : NULL;
}
