/* gpus.c: the built-in accelerator table.
 *
 * Peaks are dense FLOP/s: a vendor's "with sparsity" figure is twice the
 * dense one, and an MFU against it would be half the truth.  fp32 is the
 * plain (non-tensor) FP32 rate; tf32, bf16, fp16 and fp8 are tensor-core /
 * matrix-unit rates with fp32 accumulate (what training uses: GeForce parts
 * run fp16 accumulate at twice the rate, which training does not use).
 * 0 means the format has no published peak on that part.
 *
 * Memory: what the card exposes, not its nominal label.  HBM and GDDR
 * are built in binary units, so an "80GB" H100 holds 80 GiB and the
 * driver reports 81,559 MiB of it (85.5e9 bytes, 7% more than 80e9); the
 * label keeps the vendor's "80GB".  NVIDIA cards: nvidia-smi's
 * memory.total as printed in public logs (the figure includes a few
 * hundred MiB the driver reserves, nvidia-smi -q "Reserved": 454 MiB on
 * an A100 40GB, 700 MiB on an H200, which the 2 GiB default of
 * hardware.overhead covers with the CUDA context).  AMD: rocm-smi's "VRAM
 * Total Memory (B)".  TPUs: the Cloud TPU docs (v4 "32 GiB"; v5e and v5p
 * as printed, "16 GB" and "95 GB": no runtime figure found).  Sources:
 *   h100-sxm, h100-pcie  81,559 MiB  NVIDIA/nccl#1264 (driver 550.54.15);
 *                                    modal-labs/modal-client#2797 (its list
 *                                    of nvidia-smi totals); H100 PCIe logs
 *   h200                143,771 MiB  nvidia-smi -q, driver 550.90.12 (700 MiB reserved)
 *   b200                183,359 MiB  NVIDIA/TensorRT-LLM#10278 (driver 580.95.05)
 *   a100-40gb            40,960 MiB  modal-labs/modal-client#2797; NVIDIA/dcgm-exporter#443
 *   a100-80gb            81,920 MiB  modal-labs/modal-client#2797
 *   v100-sxm2            32,510 MiB  nvidia-smi logs of V100-SXM2-32GB (r4xx drivers)
 *   l40s                 46,068 MiB  modal-labs/modal-client#2797
 *   rtx-4090             24,564 MiB  nvidia-smi logs of GeForce RTX 4090
 *   mi300x      205,822,885,888 B    rocm-smi --showmeminfo vram (192 GiB less 320 MiB)
 *   h800                 81,559 MiB  nvidia-smi logs of H800 (700 W cap)
 *   a800                 81,920 MiB  dexmal/dexbotic#41 (driver 535.86.10, 400 W cap)
 *   h20                  97,871 MiB  NVIDIA/nvtrust#128 (driver 580.95.05, 500 W cap)
 *   gb200               189,471 MiB  nvidia-smi logs of GB200 NVL72 trays (drivers
 *                                    580.95.05, 595.58.03; 1,200 W cap)
 *   gb300               284,208 MiB  nvidia-smi logs of GB300 NVL72 trays (driver
 *                                    580.82.07; 1,400 W cap)
 *   b300                275,040 MiB  nvidia-smi of "NVIDIA B300 SXM6 AC" (driver
 *                                    580.126.09; 1,100 W cap)
 *   mi325x, mi355x   256, 288 GiB    ROCm docs "AMD GPU specifications", VRAM (GiB):
 *                                    no rocm-smi total found; MI300X's is 320 MiB
 *                                    under its 192 GiB, so these overstate by ~0.1%
 *   tpu-v6e                  32 GB   Cloud TPU docs, as printed
 *   trainium2                96 GiB  AWS Neuron docs, Trainium2 architecture
 *
 * tdp_w is the board power limit; TPUs have no published TDP: v4 uses the
 * maximum measured chip power from the Cloud TPU docs, v5e/v5p/v6e are 0
 * (unknown, energy cannot be estimated from the table); AWS publishes no
 * Trainium2 power (0).  The H20's is the driver's power cap (500 W in
 * every public nvidia-smi log found); copies of its spec sheet say 400 W.
 *
 * The cards added for 2026 (figures per GPU, dense):
 *   h800   H100 SXM's GH100 at its clocks (NVIDIA H800 SXM datasheet: 67 /
 *          989 / 1,979 / 3,958 TFLOPS sparse), so the H100 whitepaper rows.
 *   a800   A100 SXM4 80GB compute (NVIDIA A800 80GB datasheet).
 *   h20    no public NVIDIA page: the HGX H20 spec sheet as copied by
 *          resellers (sunkx109/GPUs-Specs links one): FP32 44, TF32 74,
 *          BF16/FP16 148, FP8 296 TFLOPS, 96 GB HBM3, 4.0 TB/s, NVLink
 *          900 GB/s.
 *   gb200  NVIDIA's GB200 NVL72 / HGX B200 spec table, "individual
 *          Blackwell GPU" column (sparse halved): FP8 10 PF, BF16 5 PF,
 *          TF32 2.5 PF sparse, FP32 80 TF, 186 GB, 8 TB/s, up to 1,200 W.
 *   gb300  GB300 NVL72: FP8 360 PF, BF16 180 PF dense, 576 TB/s per rack,
 *          / 72; TF32 1.25 PF and FP32 80 TF from Verda's per-GPU table
 *          (verda.com/blog/gb300-nvl72-architecture), not NVIDIA's.
 *   b300   HGX B300 table / 8, sparse halved: FP8 72, BF16 36, TF32 18 PF,
 *          FP32 600 TF per 8 GPUs; "up to 8 TB/s" (Verda lists 7.7).
 *   mi325x AMD MI325X data sheet: MI300X's dense rates, 6 TB/s, 1,000 W.
 *   mi355x AMD MI355X data sheet: 2.5 PF FP16/BF16, 5.0 PF FP8 (10.1
 *          sparse), 157.3 TF FP32, 8 TB/s, 1,400 W; the exact dense rates
 *          are 256 CUs x 8,192 FP8 FLOP/clock (ISSCC 2026) x 2.4 GHz =
 *          5,033.2 TF, half that in 16 bit.  No TF32 rate found: 0.
 *   tpu-v6e Cloud TPU docs: 918 TFLOPs bf16 (int8 1,836 TOPs, no fp8),
 *          32 GB, 1,638 GBps (earlier versions of the page: 1,640).
 *   trainium2 AWS Neuron docs: 1,299 FP8, 667 BF16/FP16/TF32, 181 FP32
 *          TFLOPS (2,563 sparse), 96 GiB, 2.9 TB/s.
 *
 * fp4 is the rate of the 4-bit formats with block scales the tensor cores
 * multiply: NVFP4 (E2M1, an E4M3 scale per 16 elements) and MXFP4 on
 * Blackwell, MXFP4 on CDNA 4; dense, per GPU:
 *   b200   DGX B200 page, FP4 144 PF sparse per 8 GPUs: 9 PF
 *          (published.yaml hw.b200: fp4_tensor 9,000 TF)
 *   gb200  GB200 NVL72 table, FP4 1,440 PF sparse per 72 GPUs: 10 PF
 *   b300   HGX B300 table, FP4 105 PF dense per 8 GPUs: 13.125 PF
 *          (Blackwell Ultra's 1.5x B200's dense FP4 at HGX clocks;
 *          glennklockwood.com/garden/processors/B300 lists 13,125 TF)
 *   gb300  GB300 NVL72 page, 1.1 EF (1,080 PF) dense FP4 per 72 GPUs: 15 PF
 *   mi355x AMD MI355X data sheet, MXFP4 10.1 PF (no sparsity on MXFP4):
 *          twice the FP8 rate, 256 CUs x 16,384 FLOP/clock x 2.4 GHz.
 * No Hopper, Ampere, Ada, CDNA 3, TPU or Trainium2 part multiplies fp4. */
#include "trainbudget/gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GB 1e9
#define GIB 1073741824.0
#define MIB 1048576.0

/* Order of peak_flops: fp32, tf32, bf16, fp16, fp8, fp4, in FLOP/s written as
 * TFLOP/s e12 literals: 66.9 * 1e12 would round to 66900000000000.01.
 * The last figure of a row is its SMs, from NVIDIA's architecture papers:
 * 132 on the H100 SXM5, 114 on the PCIe part (H100 Tensor Core GPU
 * Architecture, 2022), H200 and H800 being that SXM5 GH100; 108 on A100
 * and A800 (A100 Tensor Core GPU Architecture, 2020); 80 on V100 (Volta,
 * 2017); 148 on B200, 74 of each die's 80 enabled (Chips and Cheese,
 * "Nvidia's B200: Keeping the CUDA Juggernaut Rolling", 2025-12, measured
 * on Verda's B200s); 0 where no source here gives one per product (GB200,
 * B300, GB300). */
static const tb_gpu S_gpus[] = {
	{ "h100-sxm", "NVIDIA H100 SXM5 80GB",
	  { 66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	  81559 * MIB, 3.35e12, 700,
	  "NVIDIA H100 architecture whitepaper v1.04, Tables 1 and 3 (dense)",
	  "nvidia-smi: 81,559 MiB", 132 },
	{ "h100-pcie", "NVIDIA H100 PCIe 80GB",
	  { 51.2e12, 378e12, 756e12, 756e12, 1513e12 },
	  81559 * MIB, 2.0e12, 350,
	  "NVIDIA H100 architecture whitepaper v1.04, Tables 1 and 3 (dense)",
	  "nvidia-smi: 81,559 MiB", 114 },
	{ "h200", "NVIDIA H200 SXM 141GB",
	  { 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	  143771 * MIB, 4.8e12, 700,
	  "NVIDIA H200 product page (sparse figures halved; GH100 compute)",
	  "nvidia-smi: 143,771 MiB", 132 },
	{ "b200", "NVIDIA B200 (HGX B200, 1000 W)",
	  { 75e12, 1100e12, 2250e12, 2250e12, 4500e12, 9000e12 },
	  183359 * MIB, 8e12, 1000,
	  "NVIDIA DGX/HGX B200 pages, per GPU = system / 8 (180 GB usable); "
	  "fp32 600 TFLOPS / 8 from the HGX B200 table",
	  "nvidia-smi: 183,359 MiB", 148 },
	{ "a100-40gb", "NVIDIA A100 SXM4 40GB",
	  { 19.5e12, 156e12, 312e12, 312e12, 0 },
	  40960 * MIB, 1.555e12, 400,
	  "NVIDIA A100 40GB datasheet (2020); no FP8 on Ampere",
	  "nvidia-smi: 40,960 MiB", 108 },
	{ "a100-80gb", "NVIDIA A100 SXM4 80GB",
	  { 19.5e12, 156e12, 312e12, 312e12, 0 },
	  81920 * MIB, 2.039e12, 400,
	  "NVIDIA A100 80GB datasheet; no FP8 on Ampere",
	  "nvidia-smi: 81,920 MiB", 108 },
	{ "v100-sxm2", "NVIDIA Tesla V100 SXM2 32GB",
	  { 15.7e12, 0, 0, 125e12, 0 },
	  32510 * MIB, 900 * GB, 300,
	  "NVIDIA Tesla V100 datasheet (Tensor 125 TFLOPS is FP16; no BF16/TF32)",
	  "nvidia-smi: 32,510 MiB", 80 },
	{ "l40s", "NVIDIA L40S 48GB",
	  { 91.6e12, 183e12, 362.05e12, 362.05e12, 733e12 },
	  46068 * MIB, 864 * GB, 350,
	  "NVIDIA L40S datasheet (sparse figures halved)",
	  "nvidia-smi: 46,068 MiB", 0 },
	{ "rtx-4090", "NVIDIA GeForce RTX 4090 24GB",
	  { 82.6e12, 82.6e12, 165.2e12, 165.2e12, 330.3e12 },
	  24564 * MIB, 1008 * GB, 450,
	  "NVIDIA Ada Lovelace whitepaper, RTX 4090 (fp32-accumulate rates)",
	  "nvidia-smi: 24,564 MiB", 0 },
	{ "mi300x", "AMD Instinct MI300X 192GB",
	  { 163.4e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12 },
	  205822885888.0, 5.3e12, 750,
	  "AMD Instinct MI300X data sheet (dense matrix rates)",
	  "rocm-smi: 205,822,885,888 B", 0 },
	{ "tpu-v4", "Google Cloud TPU v4",
	  { 0, 0, 275e12, 0, 0 },
	  32 * GIB, 1200 * GB, 192,
	  "Cloud TPU docs, TPU v4 (32 GiB; power = max measured 192 W)",
	  "Cloud TPU docs: 32 GiB", 0 },
	{ "tpu-v5e", "Google Cloud TPU v5e",
	  { 0, 0, 197e12, 0, 0 },
	  16 * GB, 819 * GB, 0,
	  "Cloud TPU docs, TPU v5e (no published power)",
	  "Cloud TPU docs: 16 GB", 0 },
	{ "tpu-v5p", "Google Cloud TPU v5p",
	  { 0, 0, 459e12, 0, 0 },
	  95 * GB, 2765 * GB, 0,
	  "Cloud TPU docs, TPU v5p (no published power)",
	  "Cloud TPU docs: 95 GB", 0 },
	/* China-market Hopper and Ampere: the H100's and A100's dies at their
	 * clocks, NVLink cut (node rows below). */
	{ "h800", "NVIDIA H800 SXM5 80GB",
	  { 66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12 },
	  81559 * MIB, 3.35e12, 700,
	  "NVIDIA H800 SXM datasheet (sparse halved): H100 SXM's GH100 and clocks, so its whitepaper "
	  "figures; NVLink 400 GB/s, FP64 1 TF",
	  "nvidia-smi: 81,559 MiB", 132 },
	{ "a800", "NVIDIA A800 SXM4 80GB",
	  { 19.5e12, 156e12, 312e12, 312e12, 0 },
	  81920 * MIB, 2.039e12, 400,
	  "NVIDIA A800 80GB datasheet: A100 80GB compute, NVLink 400 GB/s; no FP8 on Ampere",
	  "nvidia-smi: 81,920 MiB", 108 },
	{ "h20", "NVIDIA H20 96GB",
	  { 44e12, 74e12, 148e12, 148e12, 296e12 },
	  97871 * MIB, 4.0e12, 500,
	  "HGX H20 spec sheet (no public NVIDIA page; resellers' copies), dense; power = nvidia-smi "
	  "cap 500 W (sheet: 400 W)",
	  "nvidia-smi: 97,871 MiB", 0 },
	/* Blackwell: one GPU of a rack or board, the system's figures / GPUs. */
	{ "gb200", "NVIDIA GB200 NVL72 (one Blackwell GPU)",
	  { 80e12, 1250e12, 2500e12, 2500e12, 5000e12, 10000e12 },
	  189471 * MIB, 8e12, 1200,
	  "NVIDIA GB200 NVL72 spec table, per GPU (sparse halved): 186 GB HBM3e, 8 TB/s, "
	  "up to 1,200 W",
	  "nvidia-smi: 189,471 MiB; NVIDIA: 186 GB", 0 },
	{ "gb300", "NVIDIA GB300 NVL72 (one Blackwell Ultra GPU)",
	  { 80e12, 1250e12, 2500e12, 2500e12, 5000e12, 15000e12 },
	  284208 * MIB, 8e12, 1400,
	  "NVIDIA GB300 NVL72 page, rack dense / 72 (FP8 360, BF16 180 PF, 576 TB/s); "
	  "TF32, FP32 Verda's table; 1,400 W",
	  "nvidia-smi: 284,208 MiB; NVIDIA: 288 GB", 0 },
	{ "b300", "NVIDIA B300 SXM6 (HGX B300, 1100 W)",
	  { 75e12, 1125e12, 2250e12, 2250e12, 4500e12, 13125e12 },
	  275040 * MIB, 8e12, 1100,
	  "NVIDIA HGX B300 table, per GPU = system / 8, sparse halved; up to 8 TB/s; "
	  "1,100 W (nvidia-smi cap)",
	  "nvidia-smi: 275,040 MiB; NVIDIA: 288 GB", 0 },
	{ "mi325x", "AMD Instinct MI325X 256GB",
	  { 163.4e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12 },
	  256 * GIB, 6e12, 1000,
	  "AMD Instinct MI325X data sheet (dense matrix rates: MI300X's CDNA 3 at its clocks)",
	  "ROCm GPU specs: 256 GiB; no rocm-smi total found", 0 },
	{ "mi355x", "AMD Instinct MI355X 288GB",
	  { 157.3e12, 0, 2516.6e12, 2516.6e12, 5033.2e12, 10066.3e12 },
	  288 * GIB, 8e12, 1400,
	  "AMD MI355X data sheet: 2.5 PF 16-bit, 5.0 PF FP8 dense (exact: 256 CUs x 2.4 GHz); "
	  "1,400 W; no TF32 rate found",
	  "ROCm GPU specs: 288 GiB; no rocm-smi total found", 0 },
	{ "tpu-v6e", "Google Cloud TPU v6e (Trillium)",
	  { 0, 0, 918e12, 0, 0 },
	  32 * GB, 1638 * GB, 0,
	  "Cloud TPU docs, TPU v6e (bf16; int8 1,836 TOPs, no fp8; no published power)",
	  "Cloud TPU docs: 32 GB", 0 },
	{ "trainium2", "AWS Trainium2",
	  { 181e12, 667e12, 667e12, 667e12, 1299e12 },
	  96 * GIB, 2.9e12, 0,
	  "AWS Neuron docs, Trainium2 architecture (dense; 2,563 TFLOPS sparse); no published power",
	  "AWS Neuron docs: 96 GiB", 0 },
};

#undef GB
#undef GIB
#undef MIB

size_t tb_gpus_count(void)
{
	return sizeof S_gpus / sizeof S_gpus[0];
}

const tb_gpu *tb_gpus_at(size_t i)
{
	return i < tb_gpus_count() ? &S_gpus[i] : NULL;
}

const tb_gpu *tb_gpus_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < tb_gpus_count(); i++)
		if (strcmp(S_gpus[i].name, name) == 0)
			return &S_gpus[i];
	return NULL;
}

const tb_gpu *tb_gpus_table_card(const tb_gpu *g)
{
	const tb_gpu *t = g ? tb_gpus_find(g->name) : NULL;
	if (!t)
		return NULL;
	for (int d = 0; d < TB_DTYPE_COUNT; d++)
		if (t->peak_flops[d] != g->peak_flops[d])
			return NULL;
	return t;
}

/* ---- nodes: what the step-time model needs beyond the card ----------- *
 *
 * Links per GPU, one direction (interconnect.yaml in the shared reference
 * set, from ml-engineering network/README.md): NVLink 3 300 GB/s (A100),
 * NVLink 4 450 GB/s (H100/H200), NVLink 5 900 GB/s (B200); network
 * 200 Gb/s per GPU on DGX A100 (HDR), 400 Gb/s on DGX H100/B200 (NDR).
 * Achieved fractions: nccl-tests all_reduce bus bandwidth 235 of 300 GB/s
 * on an 8 x A100 node (0.783); 8 x B200, 4 GiB: 377.34 GB/s over 4 nodes,
 * against 8 x 50 GB/s of network per node (0.943).  In one node the ring's
 * figures, which all-gather and reduce-scatter run (NVLink SHARP serves
 * all-reduce alone, and MLPerf's configs turn it off), from ml-engineering's
 * network/README.md (2026-08): 8 x H200 at 16 GiB, all-gather 361.4 and
 * reduce-scatter 362.9 of 450 GB/s (0.805, NVLink 4 as H100's); 8 x B200 at
 * 8 GiB, all-reduce with NVLS off 682.2 of 900 (0.758; interconnect.yaml's
 * 740.64 at 4 GiB is the default algorithm's, NVLS where it engages).  Matmul ceilings: ml-engineering's Maximum
 * Achievable Matmul FLOPS (best shape) over the dense peak: A100 bf16
 * 271.2/312 = 0.869, H100 bf16 794.5/989 = 0.803, H100 fp8 1402.6/1979 =
 * 0.709, MI300X bf16 668.4/1300 = 0.514; and from ml-engineering's
 * insights/when-to-upgrade-gpus (stas00/ml-engineering), B200 SXM bf16
 * 1745.0/2250 = 0.776 and fp8 3432.5/4500 = 0.763, H200 fp8 1453.4/1979 =
 * 0.734; and from its compute/accelerator/README.md table at 744d01e
 * (2026-08-22): GB200 bf16 1822.0/2500 = 0.729 and fp8 3615.6/5000 =
 * 0.723, B300 bf16 1769.0/2250 = 0.786 and fp8 3353.3/4500 = 0.745,
 * MI325X bf16 784.9 (1,000 W) of our 1307.4 = 0.600, MI355X bf16 1565.0
 * of our 2516.6 = 0.622 (the table divides by 2,300, the MI350X's peak;
 * the achieved TFLOP/s is what is priced).  fp8 on CDNA 3, from AMD's own
 * Max-Achievable FLOPs table (ROCm blogs, "Measuring Max-Achievable FLOPs
 * - Part 2", 2025-02, hipBLASLt at the shape it names): MI300X 1,273 and
 * MI325X 1,519 TFLOP/s of 2,614.9, 0.487 and 0.581 (the MI300X
 * footnote's 1,223.6 at 1,273 MHz looks transposed: the table's pairing,
 * 1,273 at 1,230 MHz, is 83% of the clock's rate as MI325X's is).  GB300, not measured, takes
 * B300's: the same Blackwell Ultra die, at 1,400 W where B300 runs at 1,100.  It had taken
 * GB200's (the same rack and peak, another die); a 1,400 W GB300 with its clock locked
 * reached about 1,600-2,174 TFLOP/s in cuBLAS GEMMs (facebookexperimental/triton#2023,
 * 2026-07; precision and shapes not stated), past GB200's 1,822 and B300's fraction of
 * GB300's peak alike (1,965), so the die's own fraction is the nearer floor.  fp4: Transformer Engine's GEMM
 * profiling guide (NVIDIA/TransformerEngine docs/examples/gemm_profiling,
 * 1609c890e, 2026-06) times the 12 GEMMs of a layer of hidden 4,096 and
 * MLP 16,384 at 15,872 tokens on a B300 SXM6 AC, inputs pre-quantized to
 * NVFP4 (the kernels alone; the casts are priced apart): 3.764 ms, 19.17
 * TFLOP, 5.09 PFLOP/s, which the GEMM law of perf_blocks.c reproduces at
 * 0.437 of B300's 13.125 PF (1.643 ms at a ceiling of 1; pinned in
 * test_perf_blocks).  GB300 (the same Blackwell Ultra die), B200 and GB200
 * (Blackwell, whose fp4 peak is twice its fp8, not three times) copy it
 * and are marked so; MI355X's MXFP4 has no measured kernel and keeps its
 * 16-bit fraction.  Flash attention: FlashAttention-2
 * (Dao 2023, arXiv:2307.08691) reaches 50-73% of the A100 peak (0.55 taken
 * for forward + backward); on H100 it runs at about 362 TFLOP/s (Shah et
 * al. 2024, FlashAttention-3, arXiv:2407.08608, Fig. 5, head dim 128),
 * 0.37 of the peak.  cuDNN's fused attention, which Transformer Engine
 * picks over FlashAttention on Hopper and later (perf_input.c), runs at
 * 595-617 TFLOP/s there (the same figure, head dim 128, 2K to 16K), 0.61
 * of the peak; backward 516-518 against FlashAttention-2's 318-322
 * (Fig. 6), the same ratio, 0.865 of the forward's, priced as
 * attention_backward_ratio wherever the fraction is that forward figure
 * (A100's 0.55 covers both passes: 0).  H100's 0.61 is copied to the
 * other cards Transformer Engine runs it on (H100 PCIe, H20, Blackwell),
 * which are marked assumed.  On Blackwell the backward's ratio is the
 * card's own, a property of its kernels that a benchmark's clocks leave
 * alone (NVIDIA cudnn-frontend, benchmark/sdpa_benchmark_training, PyTorch
 * 2.9 in the 25.09 container, cuDNN 9.13.1, MLPerf v5.1's: causal, head
 * dim 128, 8,192 tokens): cuDNN's 942.5 over 1,171.3 TFLOP/s on a B200,
 * 0.805 (FlashAttention-2's 298.9 over 373.4, 0.800), 1,130.1 over
 * 1,495.7 on a GB300, 0.756; GB200 takes B200's (the same die), B300
 * GB300's.  B200's measured forward, 1,171.3, is what H100's copied
 * fraction gives (1,171.5), so B200 and GB200 keep it.  GB300's forward is
 * its own: 1,495.7 over the 2,500 TFLOP/s peak and the causal kernel's
 * share at 8,192 tokens (0.8535, tb_perf_causal_rate) is 0.701.  That the
 * benchmark's sleeps do not flatter it: the frontend's own timings of
 * both racks under one cuDNN (9.22, benchmark results of 2026-04, causal,
 * 8,192 tokens) put GB300 at 1.179 times GB200's forward (1,856 against
 * 1,574) and 1.077 times its backward (1,435 against 1,332), the two
 * cards treated alike; on GB200's priced 1,301.6 and 1,047.8 those give
 * 1,534.9 and 1,128.8, beside the SDPA figures' 1,495.7 and 1,130.1.
 * B300, at 1,100 W, keeps the copied forward.  FlashAttention-2 there is
 * PyTorch's SDPA flash backend, measured (test_perf_layer.c): its
 * fraction makes the same benchmark's forward and backward together,
 * through the card's one ratio, cuDNN's (FlashAttention-2's own is 0.80
 * on B200 and 0.804 on GB300, 330.1 over 410.6: there its forward is
 * priced some 6% fast and its backward 2% slow, the two together right).
 *
 * efficiency_assumed is false only where the matmul and attention
 * fractions were measured on the card, or on the same die at the same
 * clocks and power (h200, h800 = H100 SXM; a800 = A100); every other row
 * copies the nearest measured card's and says so.  MI300X, MI325X,
 * MI355X, B200, B300 and GB200 have a measured matmul but an attention
 * fraction copied from H100 (cuDNN's, on Blackwell, where
 * FlashAttention-2's was measured: flash2_measured), so they are assumed
 * too; GB300 the other way round, its attention measured (both kernels:
 * cudnn_measured) and its matmul GB200's.
 *
 * gpus is the scale-up (NVLink, NeuronLink, ICI host) domain: 72 for an
 * NVL72 rack, 8 for HGX boards and AMD's 8-GPU platforms, 16 for a
 * trn2.48xlarge (4x4 NeuronLink-v3 torus), 8 chips per TPU v6e host.
 * H800 links: DeepSeek-V3's cluster (arXiv:2412.19437 Sec. 3.1 and 3.2.2:
 * 8 GPUs per node over NVLink/NVSwitch, "NVLink offers a bandwidth of
 * 160 GB/s, roughly 3.2 times that of IB (50 GB/s)"; arXiv:2505.09343:
 * eight 400G InfiniBand NICs per node), 160 of the 200 GB/s per direction
 * taken as the achieved fraction. */
static const tb_gpu_node S_nodes[] = {
	{ "h100-sxm", 8, 450e9, 50e9, 0.803, 0.709, 0.37, 0.805, 0.943, false,
	  "DGX H100: 8 GPUs, NVLink 4 450 GB/s, 400 Gb/s per GPU (interconnect.yaml); "
	  "MAMF 794.5/989 bf16, 1402.6/1979 fp8; FA2 on H100 (FA3 paper); "
	  "NVLink 0.805: ring all-gather 361.4, reduce-scatter 362.9 of 450 GB/s, 8 x H200, "
	  "16 GiB (ml-engineering); HBM 0.782 as H200 (cuDNN norms)", 0.61, true, true, 0.865, 0, false, false, false, false, 0.782, 0 },
	{ "h100-pcie", 8, 64e9, 50e9, 0.803, 0.709, 0.37, 0.783, 0.943, true,
	  "assumed: PCIe Gen5 x16 64 GB/s between cards (NVLink bridges pair only two), "
	  "400 Gb/s per GPU; fractions as H100 SXM", 0.61, false, false, 0.865, 0, false, false, false, false, 0, 0 },
	/* not measured on an H200, but its GH100 runs at the H100 SXM's
	 * clocks and 700 W: the H100's measured fractions stand (false) */
	{ "h200", 8, 450e9, 50e9, 0.803, 0.734, 0.37, 0.805, 0.943, false,
	  "HGX H200: 8 GPUs, NVLink 4 (interconnect.yaml), 400 Gb/s per GPU; "
	  "same GH100 compute as H100: its bf16 MAMF and FA2 fractions; fp8 MAMF measured "
	  "on H200, 1453.4/1979; NVLink 0.805 measured on it (ring all-gather and "
	  "reduce-scatter, ml-engineering); HBM 0.782 (cuDNN norms)", 0.61, true, true, 0.865, 0, false, false, false, false, 0.782, 0 },
	{ "b200", 8, 900e9, 50e9, 0.776, 0.763, 0.191, 0.758, 0.943, true,
	  "DGX B200: 8 GPUs, NVLink 5 900 GB/s, 400 Gb/s per GPU; ring all-reduce 682.2 of "
	  "900 GB/s in one node (NVLS off; ml-engineering), 377.34 GB/s over 4 "
	  "(interconnect.yaml); MAMF 1745.0/2250 "
	  "bf16, 3432.5/4500 fp8 (ml-engineering); FA2 measured (cudnn-frontend), cuDNN's as "
	  "H100; fp4, backward and MXFP8 GEMMs as B300; HBM as GB200", 0.61, true, true, 0.805, 0.437, false, false, true, false, 0.788, 0 },
	{ "a100-40gb", 8, 300e9, 25e9, 0.869, 0, 0.55, 0.783, 0.943, false,
	  "DGX A100: 8 GPUs, NVLink 3 300 GB/s, HDR 200 Gb/s per GPU; nccl all_reduce "
	  "235/300 GB/s; MAMF 271.2/312 bf16; FA2 50-73% of peak (interconnect.yaml)", 0, true, false, 0, 0, false, false, false, false, 0, 0 },
	{ "a100-80gb", 8, 300e9, 25e9, 0.869, 0, 0.55, 0.783, 0.943, false,
	  "DGX A100: 8 GPUs, NVLink 3 300 GB/s, HDR 200 Gb/s per GPU; nccl all_reduce "
	  "235/300 GB/s; MAMF 271.2/312 bf16; FA2 50-73% of peak (interconnect.yaml)", 0, true, false, 0, 0, false, false, false, false, 0, 0 },
	{ "v100-sxm2", 8, 150e9, 6.25e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "DGX-1V: 8 GPUs, NVLink 2 300 GB/s both directions (V100 datasheet), 4 x 100 Gb/s "
	  "EDR per node; fractions assumed as A100", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
	{ "l40s", 8, 32e9, 25e9, 0.803, 0.709, 0.37, 0.783, 0.943, true,
	  "assumed: no NVLink, PCIe Gen4 x16 32 GB/s, 200 Gb/s per GPU; fractions as H100", 0, false, false, 0.865, 0, false, false, false, false, 0, 0 },
	{ "rtx-4090", 8, 32e9, 1.5625e9, 0.803, 0.709, 0.37, 0.783, 0.943, true,
	  "assumed: no NVLink, PCIe Gen4 x16 32 GB/s, 100 Gb/s per node of 8; "
	  "fractions as H100", 0, false, false, 0.865, 0, false, false, false, false, 0, 0 },
	{ "mi300x", 8, 448e9, 50e9, 0.514, 0.4868, 0.37, 0.698, 0.943, true,
	  "AMD MI300X platform: 8 GPUs, 7 Infinity Fabric links of 64 GB/s each way, "
	  "400 Gb/s per GPU (assumed); MAMF 668.4/1300 bf16 (interconnect.yaml), fp8 1,273 "
	  "TFLOP/s (AMD's MAF table); a full mesh: all-reduce 312.9 of 448 GB/s on 8, 47.7 "
	  "of 64 on 2 (ml-engineering); attention assumed as H100's", 0, true, true, 0.865, 0, false, true, false, false, 0, 0 },
	{ "tpu-v4", 4, 150e9, 150e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "assumed: 4 chips per host; interchip interconnect 2400 Gb/s per chip (Cloud TPU "
	  "docs) halved for one direction, inside and between hosts (a torus, no NIC); "
	  "fractions as A100", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
	{ "tpu-v5e", 4, 100e9, 100e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "assumed: 4 chips per host; interchip interconnect 1600 Gb/s per chip (Cloud TPU "
	  "docs) halved for one direction; fractions as A100", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
	{ "tpu-v5p", 4, 300e9, 300e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "assumed: 4 chips per host; interchip interconnect 4800 Gb/s per chip (Cloud TPU "
	  "docs) halved for one direction; fractions as A100", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
	{ "h800", 8, 200e9, 50e9, 0.803, 0.709, 0.37, 0.80, 0.943, false,
	  "DeepSeek-V3 cluster (arXiv:2412.19437 Sec 3.1, 3.2.2; arXiv:2505.09343): 8 GPUs, NVLink "
	  "400 GB/s both ways, 160 GB/s achieved; 8 x 400 Gb/s IB per node; same GH100 and clocks as "
	  "H100 SXM: its MAMF and FA2 fractions; HBM as H200", 0.61, true, true, 0.865, 0, false, false, false, false, 0.782, 0 },
	{ "a800", 8, 200e9, 25e9, 0.869, 0, 0.55, 0.783, 0.943, false,
	  "A800 datasheet: NVLink 400 GB/s both ways; network assumed as DGX A100 (HDR 200 Gb/s per "
	  "GPU); same GA100 and clocks as A100: its MAMF, FA2 and NVLink fractions", 0, true, false, 0, 0, false, false, false, false, 0, 0 },
	{ "h20", 8, 450e9, 50e9, 0.961, 0.709, 0.37, 0.805, 0.943, true,
	  "HGX H20: 8 GPUs, NVLink 900 GB/s both ways (spec sheet); 400 Gb/s per GPU assumed; bf16 "
	  "matmul 142.25 of 148 TFLOP/s measured (10240^3, zzc0721/torch-performance-test-data#77); "
	  "fp8, attention, link fractions assumed as H100", 0.61, true, false, 0.865, 0, false, false, false, false, 0, 0 },
	{ "gb200", 72, 900e9, 50e9, 0.729, 0.723, 0.191, 0.758, 0.943, true,
	  "GB200 NVL72: 72 GPUs in one NVLink 5 domain, 1.8 TB/s both ways per GPU; ConnectX-7 "
	  "400 Gb/s per GPU (NVIDIA multi-node NVLink tuning guide); MAMF 1822.0/2500 bf16, "
	  "3615.6/5000 fp8 (ml-engineering); FA2 measured (cudnn-frontend), cuDNN's and ring links "
	  "as H100, B200; fp4, backward and MXFP8 GEMMs as B300; HBM 0.788 (cuDNN norms); all-to-all 0.64 "
	  "(arXiv:2603.07685 Table 7)", 0.61, true, true, 0.805, 0.437, false, false, true, false, 0.788, 0.64 },
	{ "gb300", 72, 900e9, 100e9, 0.786, 0.745, 0.203, 0.758, 0.943, true,
	  "GB300 NVL72: 72 GPUs, NVLink 5 1.8 TB/s both ways per GPU; 4 ConnectX-8 (800 Gb/s) per "
	  "4-GPU tray (NVIDIA GB300 NVL72 enterprise RA); FA2 measured (cudnn-frontend); matmul "
	  "fractions, fp4, backward and MXFP8 GEMMs as B300 (the same die); links assumed as GB200 "
	  "(its all-to-all too); cuDNN's attention measured (SDPA); HBM 0.787 (cuDNN norms)",
	  0.701, false, false, 0.756, 0.437, false, false, true, true, 0.787, 0.64 },
	{ "b300", 8, 900e9, 100e9, 0.786, 0.745, 0.203, 0.758, 0.943, true,
	  "HGX B300: 8 GPUs, NVLink 5 1.8 TB/s both ways, 8 ConnectX-8 800 Gb/s (1.6 TB/s both ways "
	  "per board); MAMF 1769.0/2250 bf16, 3353.3/4500 fp8 (ml-engineering); FA2 as GB300, cuDNN's "
	  "and links as H100, B200; NVFP4 GEMMs 3.764 ms a 5B layer at 15,872 tokens, backward and MXFP8 "
	  "ratios (TE GEMM profiling guide); HBM as GB300", 0.61, true, true, 0.756, 0.437, true, false, false, false, 0.787, 0 },
	{ "mi325x", 8, 448e9, 50e9, 0.600, 0.5809, 0.37, 0.698, 0.943, true,
	  "AMD MI325X platform: 8 GPUs, Infinity Fabric as MI300X (7 links of 64 GB/s each way); "
	  "400 Gb/s per GPU assumed; MAMF 784.9 TFLOP/s bf16 at 1,000 W (ml-engineering), fp8 "
	  "1,519 (AMD's MAF table); "
	  "attention and links assumed as MI300X", 0, true, true, 0.865, 0, false, true, false, false, 0, 0 },
	{ "mi355x", 8, 537.6e9, 50e9, 0.622, 0, 0.37, 0.698, 0.943, true,
	  "AMD MI355X platform: 8 GPUs, 7 Infinity Fabric links of 153.6 GB/s both ways (as reported, "
	  "e.g. humeconsulting.co; not read from AMD's sheet); 400 Gb/s per GPU assumed; MAMF "
	  "1565.0 TFLOP/s bf16 (ml-engineering); attention and links assumed as MI300X", 0, true, false, 0.865, 0, false, true, false, false, 0, 0 },
	{ "tpu-v6e", 8, 400e9, 400e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "Cloud TPU docs, v6e: 8 chips per host, ICI 800 GBps both ways per chip (4 ports, 2D torus) "
	  "halved for one direction, inside and between hosts; fractions as A100 (assumed)", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
	{ "trainium2", 16, 512e9, 25e9, 0.869, 0, 0.55, 0.783, 0.943, true,
	  "AWS trn2.48xlarge: 16 chips, 4x4 NeuronLink-v3 torus, 1,024 GB/s per chip (direction not "
	  "stated: taken as both, halved); EFA 3,200 Gb/s per instance = 200 Gb/s per chip; fractions "
	  "as A100 (assumed)", 0, false, false, 0, 0, false, false, false, false, 0, 0 },
};


/* A card the table does not know (an inline GPU): a PCIe server. */
static const tb_gpu_node S_node_generic = {
	"generic", 8, 32e9, 12.5e9, 0.80, 0, 0.37, 0.783, 0.943, true,
	"assumed for a card not in the table: 8 per node, PCIe Gen4 x16 32 GB/s, "
	"100 Gb/s per GPU, fractions as H100; set hardware.node to override", 0,
	false, false, 0.865, 0, false, false, false, false, 0, 0
};

const tb_gpu_node *tb_gpus_node(const char *name)
{
	if (name)
		for (size_t i = 0; i < sizeof S_nodes / sizeof S_nodes[0]; i++)
			if (strcmp(S_nodes[i].name, name) == 0)
				return &S_nodes[i];
	return &S_node_generic;
}

double tb_gpus_fp4_ceiling(const tb_gpu_node *n, const char **basis)
{
	const char *b;
	double c;
	if (n->matmul_ceiling_fp4 > 0) {
		c = n->matmul_ceiling_fp4;
		b = n->matmul_fp4_measured ? "measured on it"
		                           : "copied from another card's measured fp4 kernel, which gpus.c names";
	} else if (n->matmul_ceiling_fp8 > 0) {
		c = n->matmul_ceiling_fp8;
		b = "none measured: the fraction its fp8 matmuls reach";
	} else {
		c = n->matmul_ceiling;
		b = "none measured: the fraction its 16-bit matmuls reach";
	}
	if (basis)
		*basis = b;
	return c;
}

/* Transformer Engine's GEMM profiling guide (docs/examples/gemm_profiling,
 * 1609c890e, 2026-06) times each of a 5B layer's GEMMs at 15,872 tokens
 * with pre-quantized inputs: forward, data gradient, weight gradient.  On
 * a B300 the two backward GEMMs take longer than the forward one of the
 * same FLOPs, by format: bf16 4.434 and 4.418 ms against 4.250 (1.041),
 * per-tensor fp8 (one kernel for delayed and current scaling) 2.329 and
 * 2.325 against 2.158 (1.078), MXFP8 2.397 and 2.400 against 2.365
 * (1.014), NVFP4 1.305 and 1.205 against 1.254 (1.001, one up, one down).
 * On an H200 NVL they do not: bf16 10.747 and 10.530 against 10.632
 * (1.001), fp8 5.661 and 5.547 against 5.577 (1.005), taken as 1 on every
 * Hopper and older part.  B300's figures stand for the other Blackwell
 * parts (the same kernels; the parts tb_gpus_nvfp4 names), whose rows say
 * they are copied. */
double tb_gpus_backward_gemm(const tb_gpu_node *n, tb_dtype d, tb_fp8_recipe r)
{
	if (!n || !tb_gpus_nvfp4(n->name))
		return 1;
	switch (d) {
	case TB_DTYPE_FP4:
		return 1.001;
	case TB_DTYPE_FP8:
		switch (r) {
		case TB_FP8_MXFP8:
		case TB_FP8_BLOCKWISE:
		case TB_FP8_DEEPSEEK:
			return 1.014;
		case TB_FP8_ROWWISE:
			return 1;   /* torchao's per-row kernel: not in the guide */
		case TB_FP8_DELAYED:
		case TB_FP8_TENSORWISE:
		case TB_FP8_AUTO:
		default:
			return 1.078;
		}
	case TB_DTYPE_BF16:
	case TB_DTYPE_FP16:
		return 1.041;
	case TB_DTYPE_FP32:
	case TB_DTYPE_TF32:
	case TB_DTYPE_COUNT:
	default:
		return 1;
	}
}

/* The same guide times the layer on an H200 NVL with each recipe in
 * autocast (quantization included): per-tensor current scaling 20.285 ms,
 * block scaling 22.882; pre-quantized, current scaling's GEMMs alone take
 * 16.785 (Hopper's cuBLAS takes no pre-quantized 2D blocks, so block
 * scaling has no such figure).  Current scaling's quantization is then
 * 3.500 ms; block scaling's, at the bytes perf_input.c prices for each
 * recipe's casts (ab + 2(1 + 4/128) = 4.0625 B an element against
 * ab + (ab + 2) = 6), 2.370; its GEMMs 20.512 ms, 1.222 times current
 * scaling's.  On every Hopper part (the same cuBLAS kernels).  Blackwell's
 * block-scaled GEMMs are its MXFP8 ones, and those the guide times
 * pre-quantized on the B300: the forward 2.365 ms against per-tensor
 * scaling's 2.158, 1.096 times as long (the backward's own ratio to its
 * forward, tb_gpus_backward_gemm, then gives 2.397 and 2.400 against 2.329
 * and 2.325, as timed), copied to the parts tb_gpus_nvfp4 names.  DeepSeek's
 * own kernels for the same tiles (DeepGEMM: "up to 1550 TFLOPS on H800",
 * 0.78 of its dense fp8 peak, above the 0.709 per-tensor ceiling) are not
 * slower: TB_FP8_DEEPSEEK keeps 1. */
double tb_gpus_recipe_gemm(const tb_gpu_node *n, tb_dtype d, tb_fp8_recipe r)
{
	static const char *const hopper[] = { "h100-sxm", "h100-pcie", "h200", "h800", "h20" };
	if (!n || d != TB_DTYPE_FP8)
		return 1;
	if ((r == TB_FP8_MXFP8 || r == TB_FP8_BLOCKWISE) && tb_gpus_nvfp4(n->name))
		return 2.365 / 2.158;
	if (r != TB_FP8_BLOCKWISE)
		return 1;
	for (size_t i = 0; i < sizeof hopper / sizeof hopper[0]; i++)
		if (strcmp(n->name, hopper[i]) == 0)
			return (22.882 - 3.500 * 4.0625 / 6) / 16.785;
	return 1;
}

int64_t tb_gpu_sms(const tb_gpu *g)
{
	const tb_gpu *t = g && g->sms <= 0 ? tb_gpus_find(g->name) : NULL;
	return !g ? 0 : g->sms > 0 ? g->sms : t ? t->sms : 0;
}

const char *tb_gpus_assumed(const tb_gpu_node *n, bool fp8, tb_attn_kernel k)
{
	if (!n->efficiency_assumed)
		return NULL;
	/* a card without its own fp8 ceiling multiplies fp8 at its 16-bit
	 * fraction: that is a copy too */
	bool mm = fp8 ? n->matmul_fp8_measured : n->matmul_measured;
	bool at = k == TB_ATTN_KERNEL_AUTO || (k == TB_ATTN_KERNEL_FLASH2 && n->flash2_measured) ||
	          (k == TB_ATTN_KERNEL_CUDNN && n->cudnn_measured);
	return mm && at ? NULL : mm ? "attention efficiency"
	       : at ? "matmul efficiency" : "matmul and attention efficiencies";
}

tb_fp8_recipe tb_gpus_fp8_recipe(const char *name, tb_fp8_recipe r)
{
	bool known;
	return r == TB_FP8_MXFP8 && !tb_gpus_mx_blocks(name, &known) && known ? TB_FP8_BLOCKWISE : r;
}

/* The table's Blackwell data-centre parts, compute capability 10.x */
static const char *const S_blackwell[] = { "b200", "gb200", "b300", "gb300" };

static bool S_named(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

bool tb_gpus_nvfp4(const char *name)
{
	/* Transformer Engine's NVFP4BlockScaling is the fp4 recipe NVIDIA's
	 * stack trains with (MLPerf Training v5.1, config_common_fp4.sh:
	 * FP4_RECIPE="nvfp4"); AMD's matrix cores take MXFP4 only */
	return S_named(name, S_blackwell, sizeof S_blackwell / sizeof S_blackwell[0]);
}

/* NVIDIA cudnn-frontend's own timings of cuDNN's training attention
 * (benchmark/sdpa_benchmark_training: the frontend calling cuDNN
 * directly, causal, 8,192 tokens), TFLOP/s forward and backward.  Grouped
 * queries (several query heads to a key-value head of 128: 128 over 8 in
 * the artifacts of 2025, 64 over 8, batch 2, in the results of 2026), bf16
 * and fp8 in the same run, by release, each with the container's cuDNN
 * its log prints:
 *   B200   9.10.2  (2025-07, NGC 25.06)  bf16 1,248.3   987.7  fp8 1,370.1 1,214.3
 *   B200   9.13.1  (2025-10, NGC 25.09)  bf16 1,384.2   994.9  fp8 1,502.1 1,254.7
 *   GB200  9.22    (2026-04-24)          bf16 1,574   1,332    fp8 2,047   1,454
 *   GB300  9.13.1  (2025-10, NGC 25.09)  bf16 1,716.1 1,150.5  fp8 2,073.6 1,513.8
 *   GB300  9.19    (2026-02-26)          bf16 1,887   1,385    fp8 2,780   1,590
 *   GB300  9.22    (2026-04-24)          bf16 1,856   1,435    fp8 2,897   1,781
 *   H200   9.19    (2026-02-27)          bf16   644     541    fp8   964     430
 * The newest results add MLA's heads (DeepSeek-V3's: 128 of 192 and 128)
 * and MXFP8, under 9.22 only:
 *                  bf16           fp8            MXFP8
 *   GB200 MLA   1,585 1,193   2,397 1,959    2,219 1,494
 *   GB300 MLA   1,825 1,291   3,128 2,310    2,829 1,780
 *   GB200 grouped MXFP8 1,902 1,287; GB300 2,570 1,404
 * (H200's MLA shape failed in fp8 and Hopper has no MXFP8.)  A card takes
 * its die's series: B200 and GB200 one, B300 and GB300 another, H100 SXM,
 * H800 and H200 the GH100's.  The grouped backward gains least from fp8
 * (each key-value head's gradient summed over its query heads), and on
 * H200 the fp8 backward is slower. */
typedef struct { const char *card; int version; double bf[2], f8[2]; } S_release;
static const S_release S_grouped_by_release[] = {
	{ "b200", 91002, { 1248.265, 987.670 }, { 1370.101, 1214.331 } },
	{ "b200", 91301, { 1384.231, 994.850 }, { 1502.114, 1254.687 } },
	{ "gb200", 92200, { 1574, 1332 }, { 2047, 1454 } },
	{ "gb300", 91301, { 1716.056, 1150.498 }, { 2073.580, 1513.772 } },
	{ "gb300", 91900, { 1887, 1385 }, { 2780, 1590 } },
	{ "gb300", 92200, { 1856, 1435 }, { 2897, 1781 } },
	{ "h200", 91900, { 644, 541 }, { 964, 430 } },
};
/* the newest release's other shapes: MLA bf16, fp8, MXFP8; grouped MXFP8 */
static const struct { const char *card; double mla[3][2], grouped_mx[2]; } S_newest_shapes[] = {
	{ "gb200", { { 1585, 1193 }, { 2397, 1959 }, { 2219, 1494 } }, { 1902, 1287 } },
	{ "gb300", { { 1825, 1291 }, { 3128, 2310 }, { 2829, 1780 } }, { 2570, 1404 } },
};

/* The release the cards' cuDNN attention fractions were measured at
 * (PyTorch's SDPA in NGC 25.09, gpus.c's node table). */
#define S_FRACTION_RELEASE 91301

/* The die whose series a card takes: the name of its timed part. */
static const char *S_die(const char *name)
{
	static const char *const as[][2] = {
		{ "b200", "gb200" }, { "b300", "gb300" }, { "h100-sxm", "h200" }, { "h800", "h200" },
	};
	for (size_t i = 0; name && i < sizeof as / sizeof as[0]; i++)
		if (strcmp(name, as[i][0]) == 0)
			return as[i][1];
	return name;
}

/* The timed release of the card's die nearest `version` by major and
 * minor (the older on a tie; 0: the newest), or NULL where none. */
static const S_release *S_nearest(const char *card, int version)
{
	const char *die = S_die(card);
	const S_release *best = NULL;
	for (size_t i = 0; die && i < sizeof S_grouped_by_release / sizeof S_grouped_by_release[0]; i++) {
		const S_release *r = &S_grouped_by_release[i];
		if (strcmp(S_die(r->card), die) != 0)
			continue;
		if (!best) {
			best = r;
			continue;
		}
		int d = abs(r->version / 100 - version / 100), b = abs(best->version / 100 - version / 100);
		if (version > 0 ? d < b : r->version > best->version)
			best = r;
	}
	return best;
}

bool tb_gpus_fp8_attention(const tb_gpu_node *n, bool grouped, bool mx, int version, double *fwd,
                           double *bwd, bool *measured, int *table)
{
	*fwd = *bwd = 1;
	*measured = false;
	*table = 0;
	if (!n)
		return false;
	const char *card = NULL;
	const double *bf = NULL, *q = NULL;
	if (grouped && !mx) {
		const S_release *r = S_nearest(n->name, version);
		if (r)
			card = r->card, bf = r->bf, q = r->f8, *table = r->version;
	} else {
		for (size_t i = 0; i < sizeof S_newest_shapes / sizeof S_newest_shapes[0]; i++) {
			if (strcmp(S_die(n->name), S_newest_shapes[i].card) != 0)
				continue;
			card = S_newest_shapes[i].card;
			bf = grouped ? S_nearest(card, 0)->bf : S_newest_shapes[i].mla[0];
			q = grouped ? S_newest_shapes[i].grouped_mx : S_newest_shapes[i].mla[mx ? 2 : 1];
			*table = S_nearest(card, 0)->version;
		}
	}
	if (!card) {
		*table = 0;
		return false;
	}
	*fwd = q[0] / bf[0], *bwd = q[1] / bf[1];
	*measured = strcmp(card, n->name) == 0;
	return true;
}

/* cuDNN's attention got faster from release to release, and a run prices
 * the kernels its container ships.  The fractions were measured under
 * S_FRACTION_RELEASE, so a release is priced at its bf16 timings over
 * that release's, where both were timed on one card (GB300's series,
 * which B300 takes: 9.22 1.082 times the forward and 1.247 the backward;
 * B200's, 9.10.2 0.902 and 0.993).  A die whose nearest release was
 * timed on another card (GB200's 9.22 beside B200's 9.13.1) or with no
 * timing at the fractions' release (GH100) keeps its measured rate. */
bool tb_gpus_cudnn_attention(const tb_gpu_node *n, int version, double *fwd, double *bwd,
                             int *table)
{
	*fwd = *bwd = 1;
	*table = 0;
	const S_release *r = n ? S_nearest(n->name, version) : NULL;
	const S_release *at = n ? S_nearest(n->name, S_FRACTION_RELEASE) : NULL;
	if (!r || !at || at->version != S_FRACTION_RELEASE || strcmp(r->card, at->card) != 0)
		return false;
	*fwd = r->bf[0] / at->bf[0];
	*bwd = r->bf[1] / at->bf[1];
	*table = r->version;
	return true;
}

int tb_gpus_cudnn_parse(const char *s)
{
	int part[3] = { 0, 0, 0 }, k = 0;
	const char *p = s;
	if (!p)
		return 0;
	for (;;) {
		int v = 0, digits = 0;
		while (*p >= '0' && *p <= '9') {
			if (++digits > 2)
				return 0;
			v = v * 10 + (*p++ - '0');
		}
		if (!digits)
			return 0;
		part[k++] = v;
		if (*p == '\0')
			break;
		if (*p != '.' || k == 3)
			return 0;
		p++;
	}
	if (k < 2 || part[0] < 1)
		return 0;
	return part[0] * 10000 + part[1] * 100 + part[2];
}

const char *tb_gpus_cudnn_name(int v, char buf[16])
{
	int a = v / 10000 % 100, b = v / 100 % 100, c = v % 100;
	if (c)
		snprintf(buf, 16, "%d.%d.%d", a, b, c);
	else
		snprintf(buf, 16, "%d.%d", a, b);
	return buf;
}

bool tb_gpus_fp8_any_layout(const char *name)
{
	/* Transformer Engine's nvte_is_non_tn_fp8_gemm_supported: compute
	 * capability 10.x (common/transformer_engine.cpp); its quantizers
	 * then write no transpose (pytorch/csrc/quantizer.cpp) */
	return S_named(name, S_blackwell, sizeof S_blackwell / sizeof S_blackwell[0]);
}

bool tb_gpus_mx_blocks(const char *name, bool *known)
{
	/* NVIDIA Blackwell architecture technical brief (fifth-generation
	 * Tensor Cores: MXFP8, MXFP6, MXFP4); AMD CDNA 4 architecture white
	 * paper (MXFP8, MXFP6, MXFP4 in the matrix cores) */
	static const char *const mx[] = { "b200", "gb200", "b300", "gb300", "mi355x" };
	*known = name && tb_gpus_find(name) != NULL;
	return *known && S_named(name, mx, sizeof mx / sizeof mx[0]);
}
