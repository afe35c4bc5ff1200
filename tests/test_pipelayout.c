/* test_pipelayout.c: Megatron-LM's pipeline layout strings (pipelayout.c).
 *
 * Pinned on Megatron-LM's own documentation of the flag (docs, "Custom
 * Pipeline Model Parallel Layout"): DeepSeek-V3's 61 layers and MTP module
 * as "Et*3|(tt|)*29,m|L" on 16 ranks, whose rank map it prints; the rules
 * of its PipelineParallelLayerLayout.validate_layer_layout, each refused
 * with the byte it is about; and bounded work whatever the repeat
 * counts. */
#include <criterion/criterion.h>
#include <string.h>

#include "trainbudget/pipelayout.h"

static const char *S_parse(const char *s, int64_t p, int64_t layers, int64_t dense, int64_t mtp,
                           tb_pipe_layout *out, long *at)
{
	static char why[200];
	return tb_pipe_layout_parse(s, p, layers, dense, mtp, out, why, sizeof why, at);
}

/* Megatron-LM's table for PP16 VPP2: rank 0 the embedding and 3 decoder
 * layers, then 2; ranks 1-13 2 and 2; rank 14 2 and the MTP module; rank
 * 15 2 and the loss.  DeepSeek-V3's first 3 layers are dense. */
Test(pipelayout, megatron_deepseek_v3_pp16_vpp2)
{
	tb_pipe_layout l;
	long at;
	const char *bad = S_parse("Et*3|(tt|)*29,m|L", 16, 61, 3, 1, &l, &at);
	cr_assert_null(bad, "%s at %ld", bad, at);
	cr_expect_eq(l.pipeline, 16);
	cr_expect_eq(l.virtual_pipeline, 2);
	cr_expect_eq(l.first.layers, 5);
	cr_expect_eq(l.first.dense, 3);
	cr_expect_eq(l.first.mtp, 0);
	cr_expect_eq(l.last.layers, 2);
	cr_expect_eq(l.last.mtp, 0);
	cr_assert_eq(l.n_middle, 2);
	cr_expect_eq(l.middle[0].rank, 1);
	cr_expect_eq(l.middle[0].count, 13);
	cr_expect_eq(l.middle[0].layers, 4);
	cr_expect_eq(l.middle[0].dense, 0);
	cr_expect_eq(l.middle[1].rank, 14);
	cr_expect_eq(l.middle[1].count, 1);
	cr_expect_eq(l.middle[1].layers, 2);
	cr_expect_eq(l.middle[1].mtp, 1);
	cr_expect_str_eq(l.text, "Et*3|(tt|)*29,m|L");
}

/* The layout of Megatron-LM's DeepSeek-V3 guide (and its GB200 runs) on 8
 * ranks of 4 virtual stages: rank 0 the embedding and 1 + 2 + 2 + 2
 * layers, ranks 1-6 eight, rank 7 six with the MTP module and the loss. */
Test(pipelayout, megatron_deepseek_v3_guide_pp8_vpp4)
{
	tb_pipe_layout l;
	long at;
	cr_assert_null(S_parse("Et|(tt|)*30mL", 8, 61, 3, 1, &l, &at));
	cr_expect_eq(l.virtual_pipeline, 4);
	cr_expect_eq(l.first.layers, 7);
	cr_expect_eq(l.first.dense, 1);     /* layer 0; layers 1 and 2 are rank 1's first stage */
	cr_assert_eq(l.n_middle, 2);
	cr_expect_eq(l.middle[0].rank, 1);
	cr_expect_eq(l.middle[0].layers, 8);
	cr_expect_eq(l.middle[0].dense, 2);
	cr_expect_eq(l.middle[1].rank, 2);
	cr_expect_eq(l.middle[1].count, 5);
	cr_expect_eq(l.middle[1].dense, 0);
	cr_expect_eq(l.last.layers, 6);
	cr_expect_eq(l.last.mtp, 1);
}

/* Meta's Llama 3 405B split (126 layers on 16 ranks, the first and last
 * one layer short) written out, and a plain even split with commas. */
Test(pipelayout, even_and_uneven)
{
	tb_pipe_layout l;
	long at;
	cr_assert_null(S_parse("Et*7|(t*8|)*14,t*7L", 16, 126, 0, 0, &l, &at));
	cr_expect_eq(l.virtual_pipeline, 1);
	cr_expect_eq(l.first.layers, 7);
	cr_expect_eq(l.last.layers, 7);
	cr_assert_eq(l.n_middle, 1);
	cr_expect_eq(l.middle[0].count, 14);
	cr_expect_eq(l.middle[0].layers, 8);
	cr_assert_null(S_parse("E,t,t|t,t,L", 2, 4, 0, 0, &l, &at));
	cr_expect_eq(l.first.layers, 2);
	cr_expect_eq(l.last.layers, 2);
	cr_expect_eq(l.n_middle, 0);
	/* empty stages are allowed */
	cr_assert_null(S_parse("E||t|L", 2, 1, 0, 0, &l, &at));
	cr_expect_eq(l.virtual_pipeline, 2);
	cr_expect_eq(l.first.layers, 1);
	cr_expect_eq(l.last.layers, 0);
}

/* Each of Megatron-LM's rules, and the byte each error is about. */
Test(pipelayout, refused_with_the_byte)
{
	tb_pipe_layout l;
	long at;
	struct { const char *s; int64_t p, layers, mtp; long at; const char *has; } rows[] = {
		{ "Ett|tXL", 2, 3, 0, 5, "unknown layer" },
		{ "tE|tL", 2, 2, 0, 0, "before the embedding" },
		{ "Et|EtL", 2, 2, 0, 3, "embedding" },
		{ "Et|tLt", 2, 3, 0, 5, "after the loss" },
		{ "Etm|tL", 2, 2, 1, 4, "after an MTP module" },
		{ "Et|ttttL", 2, 3, 0, 5, "more decoder layers" },
		{ "Et|t(t|)*1L", 2, 3, 0, -1, "stages on 2" },
		{ "Et|(t(t)*2)*2L", 2, 5, 0, 5, "inside a group" },
		{ "Et|(tt|*2L", 2, 3, 0, 3, "without ')'" },
		{ "Et|tt)L", 2, 3, 0, 5, "without '('" },
		{ "Et|(tt)L", 2, 3, 0, 7, "repeat count" },
		{ "Et|t*L", 2, 2, 0, 5, "without a count" },
		{ "Et|(,)*3tL", 2, 2, 0, 3, "empty group" },
		{ "*3Et|tL", 2, 2, 0, 0, "nothing to repeat" },
		{ "Et|t", 2, 2, 0, -1, "no loss" },
		{ "Et|tt", 2, 3, 0, -1, "no loss" },
		{ "EtL|", 2, 1, 0, -1, "last rank" },
		{ "Et|t|tL", 3, 2, 0, 5, "more decoder layers" },
		{ "Et|L", 2, 2, 0, -1, "expected model.layers" },
		{ "Et|tL", 2, 2, 1, -1, "expected model.mtp_modules" },
		{ "Em|tt|t|L", 2, 3, 1, 3, "after an MTP module" },
		{ "Et|t|m|||L", 2, 2, 1, -1, "last virtual stage" },
		{ "", 2, 2, 0, -1, "empty layout" },
		{ "Et|t*99999999L", 2, 2, 0, 4, "above a million" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const char *bad = S_parse(rows[i].s, rows[i].p, rows[i].layers, 0, rows[i].mtp, &l, &at);
		cr_assert_not_null(bad, "\"%s\" accepted", rows[i].s);
		cr_expect(strstr(bad, rows[i].has) != NULL, "\"%s\": %s", rows[i].s, bad);
		cr_expect_eq(at, rows[i].at, "\"%s\": at %ld, expected %ld (%s)", rows[i].s, at,
		             rows[i].at, bad);
		cr_expect_eq(l.pipeline, 0, "a refused layout is left empty");
	}
}

/* A repeat count cannot make the work grow past the model: a million
 * repeats of an empty-stage group stop at the stage limit, a million of a
 * layer at the model's layers. */
Test(pipelayout, bounded_whatever_the_counts)
{
	tb_pipe_layout l;
	long at;
	const char *bad = S_parse("E(|)*999999tL", 2, 1, 0, 0, &l, &at);
	cr_assert_not_null(bad);
	cr_expect(strstr(bad, "65,536 stages") != NULL, "%s", bad);
	bad = S_parse("E(t)*999999|L", 2, 61, 0, 0, &l, &at);
	cr_assert_not_null(bad);
	cr_expect(strstr(bad, "more decoder layers") != NULL, "%s", bad);
	char longer[300];
	memset(longer, 't', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	cr_expect_not_null(S_parse(longer, 2, 400, 0, 0, &l, &at));
}

/* The layout a budget suggests for a heavy last stage: the last rank's
 * layers as asked, the others spread as the even split spreads them, and
 * the string read back to the same ranks. */
Test(pipelayout, written_and_read_back)
{
	char text[TB_PIPE_TEXT_MAX];
	tb_pipe_layout l;
	long at;
	cr_assert(tb_pipe_layout_write(61, 16, 1, 1, text, sizeof text));
	cr_expect_str_eq(text, "Et*4|(t*4|)*14,tmL");
	cr_assert_null(S_parse(text, 16, 61, 3, 1, &l, &at));
	cr_expect(l.first.layers == 4 && l.last.layers == 1 && l.last.mtp == 1);
	cr_expect(l.n_middle == 1 && l.middle[0].count == 14 && l.middle[0].layers == 4);
	/* 126 on 16 with 6 on the last: 120 over 15, 8 each */
	cr_assert(tb_pipe_layout_write(126, 16, 6, 0, text, sizeof text));
	cr_expect_str_eq(text, "Et*8|(t*8|)*14,t*6L");
	/* a remainder: 62 over 15 is 4 with 2 over, on the first middles */
	cr_assert(tb_pipe_layout_write(63, 16, 1, 0, text, sizeof text));
	cr_expect_str_eq(text, "Et*4|(t*5|)*2,(t*4|)*12,tL");
	cr_assert_null(S_parse(text, 16, 63, 0, 0, &l, &at));
	cr_expect(l.n_middle == 2 && l.middle[0].layers == 5 && l.middle[0].count == 2);
	/* two ranks, nothing on the last; one middle with the remainder */
	cr_assert(tb_pipe_layout_write(5, 2, 0, 0, text, sizeof text));
	cr_expect_str_eq(text, "Et*5|L");
	cr_assert(tb_pipe_layout_write(8, 3, 2, 0, text, sizeof text));
	cr_expect_str_eq(text, "Et*3|t*3|t*2L");
	/* impossible or too long: nothing written */
	cr_expect_eq(tb_pipe_layout_write(8, 1, 2, 0, text, sizeof text), 0);
	cr_expect_eq(tb_pipe_layout_write(8, 3, 9, 0, text, sizeof text), 0);
	cr_expect_eq(tb_pipe_layout_write(8, 3, 2, 0, text, 6), 0);
	cr_expect_str_eq(text, "");
}

/* Random strings of layouts' pieces: every one refused with a
 * reason and the byte in range, or read into ranks whose layers and MTP
 * modules add up to the model's (the parser is also fuzzed through the
 * scenario loader, tests/fuzz/fuzz_scenario.c). */
Test(pipelayout, random_strings_add_up_or_are_refused)
{
	unsigned long seed = 12345;
	int read = 0;
	for (int n = 0; n < 20000; n++) {
		/* pieces of layouts, and of broken ones, between an embedding
		 * and a loss most of the time */
		static const char *const pieces[] = {
			"t", "t", "t", "|", "|", "t*2", "(t|)*2", ",", "(|t)*1", "m", "x", "*", "(", ")",
			"t*0", "(tt|)*1",
		};
		char s[80] = "";
		size_t len = 0;
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		bool framed = (seed >> 60) != 0;
		if (framed)
			s[len++] = 'E';
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		int k = 1 + (int)(seed >> 60);
		for (int i = 0; i < k; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			const char *pc = pieces[(seed >> 40) % (sizeof pieces / sizeof pieces[0])];
			size_t pl = strlen(pc);
			memcpy(s + len, pc, pl);
			len += pl;
		}
		if (framed)
			s[len++] = 'L';
		s[len] = '\0';
		for (int64_t p = 1; p <= 4; p++) {
			tb_pipe_layout l;
			long at;
			const char *bad = S_parse(s, p, 4, 1, 1, &l, &at);
			if (bad) {
				/* at the end: where the missing digits belong */
				cr_assert(at >= -1 && at <= (long)len, "\"%s\": at %ld", s, at);
				cr_assert_eq(l.pipeline, 0);
				continue;
			}
			read++;
			int64_t layers = l.first.layers, mtp = l.first.mtp;
			if (p > 1)
				layers += l.last.layers, mtp += l.last.mtp;
			for (int i = 0; i < l.n_middle; i++)
				layers += l.middle[i].count * l.middle[i].layers,
				mtp += l.middle[i].count * l.middle[i].mtp;
			cr_assert_eq(layers, 4, "\"%s\" on %lld", s, (long long)p);
			cr_assert_eq(mtp, 1, "\"%s\" on %lld", s, (long long)p);
		}
	}
	cr_expect(read > 0, "no random string was a layout");
}
