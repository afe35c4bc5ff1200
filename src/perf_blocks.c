/* perf_blocks.c: the step-time model's building blocks (perf.h): one GEMM,
 * one collective, the pipeline bubble, the clocks a power limit leaves and
 * the attention's key pairs a local window leaves, each from its figures
 * alone (docs/formulas.md). */
#include "trainbudget/perf.h"
#include "calc.h"

#include <math.h>

static bool S_pos(double v)
{
	return v > 0 && isfinite(v);
}

static int64_t S_clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

double tb_perf_clock_fraction(const tb_perf_hw *hw, const tb_perf_consts *c)
{
	double p = hw ? hw->power_fraction : 1;
	if (!(p > 0 && p < 1))
		return 1;
	return pow(p, (c ? c : &tb_perf_fitted)->power_exponent);
}

bool tb_perf_mem_measured(const tb_perf_hw *hw)
{
	return hw && hw->mem_fraction > 0;
}

double tb_perf_mem_fraction(const tb_perf_hw *hw, const tb_perf_consts *c)
{
	if (tb_perf_mem_measured(hw))
		return hw->mem_fraction;
	return (c ? c : &tb_perf_fitted)->mem_fraction;
}

double tb_perf_matmul_s(double m, double n, double k, double elem_bytes,
                        const tb_perf_hw *hw, const tb_perf_consts *c)
{
	if (!S_pos(m) || !S_pos(n) || !S_pos(k) || !hw)
		return 0;
	if (!c)
		c = &tb_perf_fitted;
	double d0 = c->matmul_dim_half;
	double frac = hw->matmul_ceiling * tb_perf_clock_fraction(hw, c) / (1 + d0 / m + d0 / n + d0 / k);
	double compute_s = 2 * m * n * k / (hw->peak_flops * frac);
	double memory_s = (m * k + k * n + m * n) * elem_bytes /
	                  (hw->hbm_bytes_per_s * tb_perf_mem_fraction(hw, c));
	return compute_s > memory_s ? compute_s : memory_s;
}

double tb_perf_ceil_log2(double n)
{
	if (!(n >= 2 && n <= 2147483648.0) || n != floor(n))
		return ceil(log2(n));
	return (double)(64 - __builtin_clzll((unsigned long long)n - 1));
}

double tb_perf_collective_s(tb_coll kind, double bytes, int64_t n,
                            int64_t per_node, const tb_perf_hw *hw,
                            const tb_perf_consts *k)
{
	if (!S_pos(bytes) || n <= 1 || !hw)
		return 0;
	if (!k)
		k = &tb_perf_fitted;
	int64_t g = S_clamp(per_node, 1, n);
	double nodes = ceil((double)n / (double)g);
	double chunk = kind == TB_COLL_P2P ? bytes : bytes / (double)n;
	double size_frac = chunk / (chunk + k->coll_chunk_half_bytes);
	double link_f = kind == TB_COLL_ALL_TO_ALL && hw->a2a_fraction > 0 ? hw->a2a_fraction
	                                                                   : hw->nvlink_fraction;
	double nvl = hw->nvlink_bytes_per_s * link_f * size_frac;
	double net = hw->network_bytes_per_s * hw->network_fraction * size_frac;
	if (net > nvl)
		net = nvl;      /* a node's own links are never the slower ones */
	/* a full mesh: the g members of a node (a pair for a send) have g - 1
	 * of a GPU's G - 1 links between them; one member alone crosses no
	 * link of the node */
	if (hw->mesh && hw->gpus_per_node > 1 && (kind == TB_COLL_P2P || g > 1)) {
		double links = kind == TB_COLL_P2P ? 1 : (double)(g - 1);
		nvl *= fmin(1, links / (double)(hw->gpus_per_node - 1));
	}
	double latency_s = k->nvlink_latency_s;
	if (nodes > 1)
		latency_s += k->network_latency_s * tb_perf_ceil_log2(nodes);
	double dn = (double)n;

	switch (kind) {
	case TB_COLL_P2P:
		return latency_s + bytes / (nodes > 1 ? net : nvl);
	case TB_COLL_ALL_TO_ALL:
		/* (g-1)/n of the buffer stays in the node; the rest leaves
		 * through the GPU's own port. */
		return latency_s + (double)(g - 1) / dn * bytes / nvl +
		       (dn - (double)g) / dn * bytes / net;
	case TB_COLL_ALL_REDUCE:
	case TB_COLL_REDUCE_SCATTER:
	case TB_COLL_ALL_GATHER:
	default: {
		/* A ring's slowest hop: NVLink in a node; across nodes the g
		 * members of a node cross the boundary on their g ports at once. */
		double link = nvl;
		if (nodes > 1 && (double)g * net < nvl)
			link = (double)g * net;
		double factor = (dn - 1) / dn;
		if (kind == TB_COLL_ALL_REDUCE)
			factor *= 2;
		return latency_s + factor * bytes / link;
	}
	}
}

double tb_perf_bubble_fraction(int64_t pipeline, int64_t virtual_pipeline,
                               int64_t microbatches)
{
	if (pipeline <= 1)
		return 0;
	double v = virtual_pipeline > 1 ? (double)virtual_pipeline : 1;
	double m = microbatches > 1 ? (double)microbatches : 1;
	return (double)(pipeline - 1) / (v * m);
}

double tb_perf_key_share(const tb_perf_input *in, double T, bool causal)
{
	double L = (double)in->layers;
	if (in->window <= 0 || in->window_layers <= 0 || !(L > 0) || !(T > 0))
		return 1;
	double local = fmin((double)in->window_layers, L);
	double kg = tb_calc_keys_global(T, causal);
	double kl = tb_calc_keys_local((double)in->window, in->window_chunked, T, causal);
	return ((L - local) * kg + local * kl) / (L * kg);
}
