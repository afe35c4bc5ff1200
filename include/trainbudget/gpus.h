/* gpus.h: the built-in accelerator table (static const, with sources).
 * Peaks are dense: vendors' "with sparsity" figures are halved. */
#ifndef TB_GPUS_H
#define TB_GPUS_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/inputs.h"

size_t tb_gpus_count(void);
const tb_gpu *tb_gpus_at(size_t i);            /* borrowed, static */
const tb_gpu *tb_gpus_find(const char *name);  /* NULL when unknown */
/* The table's entry card g is: the same name and the same dense peaks, or
 * NULL for an inline card that only borrows a table name (its node and
 * efficiencies still come by name; a published ceiling or the model's
 * record of the table's card, measured against its peaks, does not). */
const tb_gpu *tb_gpus_table_card(const tb_gpu *g);

/* What the step-time model (perf.h) needs beyond the card itself: the node
 * it usually comes in, its links, and the fractions of peak that measured
 * kernels reach.  One row per card of the table above, each with its
 * sources; a figure nobody publishes is an assumption and the source says so. */
typedef struct tb_gpu_node {
	char name[32];              /* the card, as in the table above */
	int64_t gpus;               /* per node */
	double nvlink_bytes_per_s;  /* per GPU, one direction; PCIe where no NVLink */
	double network_bytes_per_s; /* per GPU, one direction */
	double matmul_ceiling;      /* best achievable 16-bit GEMM, fraction of dense peak */
	double matmul_ceiling_fp8;  /* the same in fp8; 0 = as 16-bit */
	double attention_fraction;  /* flash attention, of the 16-bit peak */
	double nvlink_fraction;     /* achieved all-reduce bus bandwidth / link */
	double network_fraction;
	/* true: matmul_ceiling(_fp8) and attention_fraction were not measured
	 * on this card but copied from the nearest measured one (the source
	 * says which); false: measured on it, or on a part with the same die
	 * at the same clocks and power (h200, h800, a800). */
	bool efficiency_assumed;
	char source[384];
	/* cuDNN's fused attention, of the 16-bit peak, on a card where
	 * Transformer Engine picks it over FlashAttention (Hopper and later);
	 * 0: none, attention_fraction serves */
	double attention_fraction_cudnn;
	/* on a row marked assumed: its 16-bit (fp8) matmul ceiling was
	 * still measured on the card, only the rest copied */
	bool matmul_measured, matmul_fp8_measured;
	/* the flash backward's rate over the forward's where the fractions
	 * above are forward figures (FlashAttention-3, arXiv:2407.08608, Figs.
	 * 5 and 6: 0.865 for FlashAttention-2 and cuDNN alike on H100; on
	 * Blackwell cuDNN's own, measured, which FlashAttention-2's shares,
	 * its fraction read through it); 0 where the fraction was measured
	 * over forward and backward together (A100's) */
	double attention_backward_ratio;
	/* the 4-bit GEMMs' fraction of the fp4 dense peak, kernel only (the
	 * casts are priced apart); 0: no fp4 kernel measured on the card or
	 * its kind, priced at the fp8 (else 16-bit) fraction.  measured:
	 * on this card; else copied from the card its source names */
	double matmul_ceiling_fp4;
	bool matmul_fp4_measured;
	/* the node's GPUs joined by a full mesh of point-to-point links (AMD's
	 * Infinity Fabric: 7 each), not a switch: nvlink_bytes_per_s is all of
	 * a GPU's links together, and a collective over g of the node's G GPUs
	 * reaches g - 1 of its G - 1 links */
	bool mesh;
	/* on a row marked assumed: attention_fraction, FlashAttention-2's, was
	 * still measured on the card (PyTorch's SDPA flash backend), only
	 * cuDNN's copied */
	bool flash2_measured;
	/* on a row marked assumed: attention_fraction_cudnn was measured on
	 * the card (through PyTorch's SDPA, as flash2_measured's), only the
	 * matmul copied */
	bool cudnn_measured;
	/* what a memory-bound kernel reaches of the HBM bandwidth: cuDNN's
	 * RMSNorm over 16,384 x 4,096 bf16, the mean of its forward's and
	 * backward's achieved bytes over the peak (cudnn-frontend
	 * benchmark/norms, 2026-02), measured on the card or on its die at the
	 * same clocks (the source says which); 0: none measured, the fitted
	 * mem_fraction serves */
	double mem_fraction;
	/* what an all-to-all among the node's GPUs reaches of their links,
	 * measured on the card (a switch fabric runs a collective of many
	 * small messages below its ring figure); 0: none measured,
	 * nvlink_fraction serves */
	double a2a_fraction;
} tb_gpu_node;

/* The node row of card `name`, or the generic row (name "generic") for a
 * card the table does not know.  Never NULL; borrowed, static. */
const tb_gpu_node *tb_gpus_node(const char *name);

/* What of node n's efficiencies were copied from another card, for a run
 * in fp8 or not whose attention runs kernel k (TB_ATTN_KERNEL_AUTO: no
 * fused attention, its matmuls priced as matmuls), as words for a sentence:
 * "matmul and attention efficiencies", "attention efficiency", "matmul
 * efficiency", or NULL where both were measured on it.  Every report of
 * an assumed card reads this one answer. */
const char *tb_gpus_assumed(const tb_gpu_node *n, bool fp8, tb_attn_kernel k);

/* The fraction of its fp4 dense peak card n's fp4 GEMMs are priced at
 * (0 for a card without an fp4 peak is the caller's to rule out), and
 * in *basis how that is known, as words for a sentence: "measured on it",
 * "copied from another card's measured fp4 kernel, which gpus.c names" or "none
 * measured: the fraction its fp8 (16-bit) matmuls reach".  Every price,
 * warning and report of an fp4 matmul reads this one answer. */
double tb_gpus_fp4_ceiling(const tb_gpu_node *n, const char **basis);

/* Card g's streaming multiprocessors, the ones a GEMM runs on when it has
 * the card to itself: its own (the table's, gpus.c has the sources; an
 * inline card's hardware.gpu.sms), else the table card's of its name,
 * else 0, where what an overlapped collective takes of them cannot be
 * priced.  The step, the scenario's check, the report, the plan and the
 * JSON read this one answer. */
int64_t tb_gpu_sms(const tb_gpu *g);

/* How much longer a linear layer's backward GEMMs (data and weight
 * gradient) take on card n than its forward GEMM of the same FLOPs, with
 * operands of dtype d scaled by recipe r (fp8 only): 1 where nothing
 * longer was measured.  The GEMM law (perf.h) is symmetric in its three
 * dimensions; Blackwell's kernels are not, Hopper's are (gpus.c). */
double tb_gpus_backward_gemm(const tb_gpu_node *n, tb_dtype d, tb_fp8_recipe r);

/* How much longer recipe r's fp8 GEMMs take on the card of node n than
 * its per-tensor ones (whose fraction the card's fp8 ceiling is): 1 but
 * for Transformer Engine's block scaling on Hopper, which its GEMM
 * profiling guide times (gpus.c).  A multiplier of the GEMMs' time. */
double tb_gpus_recipe_gemm(const tb_gpu_node *n, tb_dtype d, tb_fp8_recipe r);

/* Whether the table's card `name` multiplies OCP MX block-scaled fp8 (1x32
 * blocks, power-of-two scales) in its matrix units: Blackwell (b200,
 * gb200, b300, gb300) and CDNA 4 (mi355x).  *known: false for a card the
 * table does not have (then false, and nothing can be said). */
bool tb_gpus_mx_blocks(const char *name, bool *known);
/* Whether card `name`'s per-tensor fp8 GEMMs take their operands in any
 * layout (Blackwell's, compute capability 10.x), so Transformer Engine
 * keeps no transposed copy of an fp8 weight; false: only the TN layout
 * (Hopper, Ada; AMD's assumed alike), a transpose beside each. */
bool tb_gpus_fp8_any_layout(const char *name);

/* Whether fp4 training on card `name` runs NVIDIA's NVFP4 (16-element
 * blocks with E4M3 scales and a scale a tensor: the Blackwell parts)
 * rather than MXFP4 (32-element blocks, power-of-two scales: CDNA 4). */
bool tb_gpus_nvfp4(const char *name);

/* cuDNN's fp8 attention (MXFP8 where mx) over its bf16 attention on the
 * node's card, causal, forward in *fwd and backward in *bwd (rates: above
 * 1 faster), for grouped queries (several query heads a key-value head)
 * or not, timed under the release nearest `version` (as below; 0: the
 * newest; MLA's heads and MXFP8 were timed under the newest only), that
 * release in *table; *measured whether on the card itself.  false where
 * no figure stands for the card and shape (then 16-bit attention is
 * priced). */
bool tb_gpus_fp8_attention(const tb_gpu_node *n, bool grouped, bool mx, int version, double *fwd,
                           double *bwd, bool *measured, int *table);

/* cuDNN's 16-bit attention under cuDNN `version` (major * 10000 + minor
 * * 100 + patch, as cudnnGetVersion; 0: the newest timed) over the rate
 * the node's attention fraction was measured at (9.13.1, MLPerf v5.1's
 * container), forward in *fwd and backward in *bwd, from the timings of
 * the release nearest `version` (*table, same encoding).  false, both 1,
 * where that release and 9.13.1 were not timed on one card of the die. */
bool tb_gpus_cudnn_attention(const tb_gpu_node *n, int version, double *fwd, double *bwd,
                             int *table);

/* "9.21" or "9.13.1" as cudnnGetVersion encodes it (92100, 91301); 0
 * where `s` is not such a version (major 1-99, minor and patch 0-99). */
int tb_gpus_cudnn_parse(const char *s);

/* The release `v` as written ("9.22", "9.13.1") into buf. */
const char *tb_gpus_cudnn_name(int v, char buf[16]);

/* The fp8 recipe card `name` runs for a scenario written with `r`: r,
 * except MXFP8 on a table card without MX block scaling, which runs the
 * 1x128 and 128x128 blocks (BLOCKWISE) instead.  A search over cards
 * prices each with its own (the scenario's card is held to r by the
 * loader). */
tb_fp8_recipe tb_gpus_fp8_recipe(const char *name, tb_fp8_recipe r);

#endif
