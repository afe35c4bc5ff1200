/* pipelayout.h: which layers each pipeline rank holds, as Megatron-LM's
 * --pipeline-model-parallel-layout writes it (parallelism.pipeline_layout).
 *
 * A layout is a list of virtual stages split by '|': 'E' the embedding,
 * 't' a decoder layer, 'm' a multi-token-prediction module, 'L' the loss
 * (the output head); "(tt|)*29" and "t*3" repeat; commas are ignored.
 * Stage i runs on pipeline rank i mod p as that rank's virtual stage
 * i / p, so p x v stages give v virtual stages a rank.  "Et*3|(tt|)*29,m|L"
 * on 16 ranks is DeepSeek-V3's example in Megatron-LM's documentation:
 * rank 0 the embedding and 5 layers, ranks 1-13 4 layers, rank 14 2
 * layers and the MTP module, rank 15 2 layers and the head.
 *
 * The step-time and memory models read a pipeline as three kinds of rank:
 * the first (the embedding), the last (the head) and the middle ones.  A
 * layout keeps the first and the last and each kind of middle rank (its
 * layers, dense layers and MTP modules) once, with how many ranks are of
 * that kind.  No I/O; the parser allocates only while it runs. */
#ifndef TB_PIPELAYOUT_H
#define TB_PIPELAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of middle rank a layout may have; Megatron-LM's published
 * layouts have one or two. */
#define TB_PIPE_KINDS 8
/* The longest layout string, and the most stages it may expand to. */
#define TB_PIPE_TEXT_MAX 256
#define TB_PIPE_STAGES_MAX 65536

typedef struct tb_pipe_rank {
	int64_t rank;     /* the lowest rank of this kind */
	int64_t count;    /* ranks of this kind */
	int64_t layers;   /* decoder layers ('t') */
	int64_t dense;    /* of which dense: the model's first dense_layers */
	int64_t mtp;      /* MTP modules ('m') */
} tb_pipe_rank;

typedef struct tb_pipe_layout {
	/* 0: no layout (the even split, tb_perf_stage_split) */
	int64_t pipeline, virtual_pipeline;
	tb_pipe_rank first, last;        /* rank 0, rank pipeline - 1 */
	tb_pipe_rank middle[TB_PIPE_KINDS];
	int n_middle;
	char text[TB_PIPE_TEXT_MAX];     /* as written */
} tb_pipe_layout;

/* Parses `text` for `pipeline` ranks and a model of `layers` decoder
 * layers (the first `dense` of them dense) and `mtp` MTP modules, with
 * Megatron-LM's rules: the stages a multiple of the ranks, the embedding
 * first and the loss last, exactly once each, every layer and MTP module
 * placed, the MTP modules after the last layer, together, in their rank's
 * last virtual stage; and this model's: the embedding on rank 0 and the
 * loss on the last rank, at most TB_PIPE_KINDS kinds of middle rank.
 * Returns NULL and fills out, or says what is wrong (a static string or
 * one in `why`, of `cap` bytes) with *at the byte of text it is about
 * (-1 when about the whole). */
const char *tb_pipe_layout_parse(const char *text, int64_t pipeline, int64_t layers,
                                 int64_t dense, int64_t mtp, tb_pipe_layout *out,
                                 char *why, size_t cap, long *at);

/* Writes the layout of `layers` decoder layers on `pipeline` ranks (one
 * stage a rank) with `last` of them on the last rank, after them its
 * `mtp` MTP modules and the loss; the others as evenly as the even split
 * spreads them (the remainder on the middle ranks first, then the first):
 * DeepSeek-V3's 61 layers on 16 ranks with 1 on the last is
 * "Et*4|(t*4|)*14,tmL".  Returns the length, 0 where the layout is
 * impossible (pipeline < 2, last > layers) or does not fit in cap. */
size_t tb_pipe_layout_write(int64_t layers, int64_t pipeline, int64_t last, int64_t mtp,
                            char *dst, size_t cap);

#endif
