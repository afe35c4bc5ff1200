/* ceiling.c: the best published MFU per card and precision (ceiling.h).
 * Each row is the highest of runs.yaml's scored rows for its card, checked
 * by `make validate`; docs/validation.md has the table beside them. */
#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"

#include <string.h>

static const tb_ceiling S_rows[] = {
	{ "a100-80gb", TB_DTYPE_BF16, 0.6541, "megascale.175b.ms.256",
	  "MegaScale, 175B on 256 A100 (arXiv:2402.15627 Table 2)" },
	{ "h100-sxm", TB_DTYPE_BF16, 0.4700, "mmz.mixtral.8x22b.h100.forced",
	  "Megatron MoE Model Zoo, Mixtral 8x22B on 128 H100" },
	{ "h100-sxm", TB_DTYPE_FP8, 0.4503, "mlperf40.gpt3.512",
	  "MLPerf Training v4.0, NVIDIA's GPT-3 175B on 512 H100" },
	{ "h200", TB_DTYPE_FP8, 0.4683, "mlperf50.l405b.h200.nebius.512",
	  "MLPerf Training v5.0, Nebius's Llama 3.1 405B on 512 H200" },
	{ "h800", TB_DTYPE_FP8, 0.2025, "ds3.pretrain.2048",
	  "DeepSeek-V3 on 2,048 H800, its pre-training less our failure losses (arXiv:2412.19437 Table 1)" },
	{ "b200", TB_DTYPE_BF16, 0.2214, "ttoss.120b.b200.ep8.bs2",
	  "Lambda's torchtitan sweep, gpt-oss-120b on 8 B200 (pytorch/torchtitan PR 4604)" },
	{ "b200", TB_DTYPE_FP8, 0.4322, "mlperf51.lora.b200.8.lenovo.sr680av3",
	  "MLPerf Training v5.1, Lenovo's Llama 2 70B LoRA on 8 B200" },
	{ "b200", TB_DTYPE_FP4, 0.2174, "mlperf60.l8b.nvfp4.b200.8.smc",
	  "MLPerf Training v6.0, Supermicro's Llama 3.1 8B in NVFP4 on 8 B200" },
	{ "b300", TB_DTYPE_FP8, 0.4594, "mlperf60.lora.b300.8.dell",
	  "MLPerf Training v6.0, Dell's Llama 2 70B LoRA on 8 B300 (its fp8 steps)" },
	{ "b300", TB_DTYPE_FP4, 0.2278, "mlperf60.lora.nvfp4.b300.8.cisco",
	  "MLPerf Training v6.0, Cisco's Llama 2 70B LoRA on 8 B300 (its NVFP4 steps)" },
	{ "gb200", TB_DTYPE_BF16, 0.3304, "mcore.ds3.gb200.256.bf16",
	  "Megatron Core MoE report, DeepSeek-V3 on 256 GB200 (arXiv:2603.07685 Table 11)" },
	{ "gb200", TB_DTYPE_FP8, 0.3761, "mlperf50.l405b.gb200.256",
	  "MLPerf Training v5.0, NVIDIA's Llama 3.1 405B on 256 GB200" },
	{ "gb200", TB_DTYPE_FP4, 0.2421, "mlperf51.l405b.nvfp4.gb200.2560",
	  "MLPerf Training v5.1, NVIDIA's Llama 3.1 405B in NVFP4 on 2,560 GB200" },
	{ "gb300", TB_DTYPE_FP8, 0.5023, "mlperf60.lora.gb300.8.hpe",
	  "MLPerf Training v6.0, HPE's Llama 2 70B LoRA on 8 GB300 (its fp8 steps)" },
	{ "gb300", TB_DTYPE_FP4, 0.2507, "mlperf60.l405b.nvfp4.gb300.512",
	  "MLPerf Training v6.0, NVIDIA's Llama 3.1 405B in NVFP4 on 512 GB300" },
	{ "mi300x", TB_DTYPE_BF16, 0.2117, "tao.f8.mi300x.8b.bf16",
	  "torchao's float8 README, Llama 3 8B on 8 MI300X" },
	{ "mi300x", TB_DTYPE_FP8, 0.2545, "mlperf51.lora.mi300x.8.amd",
	  "MLPerf Training v5.1, AMD's Llama 2 70B LoRA on 8 MI300X" },
	{ "mi325x", TB_DTYPE_FP8, 0.3458, "mlperf51.lora.mi325x.8.mango.1node",
	  "MLPerf Training v5.1, MangoBoost's Llama 2 70B LoRA on 8 MI325X" },
	{ "mi355x", TB_DTYPE_FP8, 0.3669, "mlperf51.lora.mi355x.8.amd",
	  "MLPerf Training v5.1, AMD's Llama 2 70B LoRA on 8 MI355X" },
};

size_t tb_ceiling_count(void)
{
	return sizeof S_rows / sizeof S_rows[0];
}

const tb_ceiling *tb_ceiling_at(size_t i)
{
	return i < tb_ceiling_count() ? &S_rows[i] : NULL;
}

const tb_ceiling *tb_ceiling_for(const tb_gpu *g, tb_precision p)
{
	/* an MFU is over the card's own peaks: an inline card under a table
	 * name is not held to the table card's runs */
	const tb_gpu *t = tb_gpus_table_card(g);
	return t ? tb_ceiling_find(t->name, tb_ceiling_dtype(t, p)) : NULL;
}

tb_dtype tb_ceiling_dtype(const tb_gpu *g, tb_precision p)
{
	/* the format the card runs the precision's matmuls in (a format it
	 * lacks falls back as the time's peak does), every 16-bit one alike */
	tb_dtype dt = TB_DTYPE_BF16;
	if (g)
		tb_gpu_peak_flops(g, tb_precision_compute_dtype(p), &dt);
	return dt == TB_DTYPE_FP8 || dt == TB_DTYPE_FP4 ? dt : TB_DTYPE_BF16;
}

const tb_ceiling *tb_ceiling_above(const tb_gpu *g, tb_precision p, double mfu)
{
	const tb_ceiling *c = tb_ceiling_for(g, p);
	/* a tenth of a point of slack: the figures are rounded to it */
	return c && mfu > c->mfu + 0.001 ? c : NULL;
}

const tb_ceiling *tb_ceiling_find(const char *card, tb_dtype dtype)
{
	if (!card)
		return NULL;
	for (size_t i = 0; i < tb_ceiling_count(); i++)
		if (S_rows[i].dtype == dtype && strcmp(S_rows[i].card, card) == 0)
			return &S_rows[i];
	return NULL;
}

const char *tb_ceiling_format(const tb_ceiling *c)
{
	return c ? tb_ceiling_format_dtype(c->dtype) : "?";
}

const char *tb_ceiling_format_dtype(tb_dtype d)
{
	return d == TB_DTYPE_FP8 ? "fp8" : d == TB_DTYPE_FP4 ? "fp4" : "16 bits";
}
