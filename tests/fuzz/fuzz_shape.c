/* fuzz_shape.c: libFuzzer target for complex text (issue 23): any bytes,
 * any script, any direction, through the bidi levels, the font runs, the
 * shaper, the break opportunities and the paragraph breaker.
 *
 * The first byte picks the direction (left to right, right to left,
 * auto) and the style; the second the line width; the rest is the text,
 * sanitized as the PDF sanitizes every string.  The contract: either a
 * character no font draws is refused with an error, or every character
 * belongs to exactly one cluster a glyph carries the text of; a break
 * opportunity falls only on a character boundary; every line of the
 * paragraph fits its width unless it is a single cluster.  (A character
 * that draws nothing may be dropped: a run of only bidi marks.) */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_break.h"
#include "pdf_doc.h"
#include "trainbudget/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 4096)
		return 0;
	int dir = data[0] % 3;
	unsigned style = (data[0] >> 2) & (TB_PDF_BOLD | TB_PDF_ITALIC | TB_PDF_MONO);
	double width = 20 + data[1] * 2.0;
	tb_buf text;
	tb_buf_init(&text);
	tb_pdf_sanitize(&text, (const char *)data + 2, size - 2);

	/* one document for every input: the fonts are read once (shaping
	 * assigns no CIDs, so nothing accumulates) */
	static tb_pdf_doc st;
	static bool ready;
	if (!ready) {
		const char *fonts = getenv("TB_FUZZ_FONT_DIR");
		st.font_dir = fonts ? fonts : "build/fonts";
		tb_pdf_fontset_init(&st, NULL);
		ready = true;
	}
	tb_diags d;
	tb_diags_init(&d);
	st.d = &d;
	st.failed = false;
	st.cells.n = 0;

	tb_pdf_cells_add(&st.cells, style, text.ptr, text.len);
	tb_pdf_shape(&st, &st.cells, dir, &st.shaped);
	if (st.failed) {
		if (d.errors < 1)
			abort();
	} else {
		/* each character in one cluster whose text a glyph carries; only
		 * a character that draws nothing (a bidi mark, a joiner) may be
		 * dropped, as HarfBuzz removes a run made only of such */
		unsigned char *in = calloc(st.cells.n ? st.cells.n : 1, 1);
		for (size_t i = 0; i < st.shaped.n; i++) {
			const tb_pdf_glyph *g = &st.shaped.v[i];
			if (g->cell + g->ncells > st.cells.n || g->ncells == 0)
				abort();
			for (uint32_t k = 0; g->text && k < g->ncells; k++)
				if (in[g->cell + k]++)
					abort();
			if (g->adv < -100000 || g->adv > 100000)
				abort();
		}
		for (size_t i = 0; st.shaped.n && i < st.cells.n; i++)
			if (!in[i] && !tb_pdf_ignorable(st.cells.v[i].cp))
				abort();
		free(in);
	}

	unsigned char *brk = malloc(text.len ? text.len : 1);
	tb_pdf_breaks(text.ptr, text.len, brk);
	for (size_t i = 0; i < text.len; i++)
		if (brk[i] != TB_PDF_BREAK_NONE && (i == 0 || ((unsigned char)text.ptr[i] & 0xC0) == 0x80))
			abort();
	/* a word the layout leaves whole (letters, marks and digits of spaced
	 * scripts) is one ICU would not break either */
	size_t w = 0;
	while (w < text.len && text.ptr[w] != ' ')
		w++;
	if (w > 0) {
		tb_pdf_breaks(text.ptr, w, brk);
		bool inside = false;
		for (size_t i = 1; i < w; i++)
			inside = inside || brk[i] == TB_PDF_BREAK_WORD;
		if (inside && !tb_pdf_breaks_inside(text.ptr, w))
			abort();
	}
	free(brk);

	if (!st.failed) {
		tb_pdf_para p;
		tb_pdf_para_init(&p, 9.5);
		tb_pdf_para_add(&p, style, text.ptr, text.len);
		tb_pdf_para_layout(&p, width, tb_pdf_fontset_measure, &st);
		for (size_t l = 0; l < p.nlines && !st.failed; l++)
			if (p.lines[l].width_pt > width + 1e-3 && p.lines[l].n > 1)
				abort();
		tb_pdf_para_release(&p);
	}

	st.d = NULL;
	tb_diags_release(&d);
	tb_buf_release(&text);
	return 0;
}
