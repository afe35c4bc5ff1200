/* fuzz_fonts.c: libFuzzer target for the TrueType reader and the PDF's use
 * of it, on damaged faces.
 *
 * The input is the regular face (DejaVuSans.ttf) of a font folder whose
 * bold and mono faces are the built ones, and no fallback font is offered:
 * whatever the regular face cannot draw, nothing else will.  A fixed
 * document is rendered with it.  The contract (issue 18): either the
 * document is refused with an error that names the face's file (or, for
 * a character past ASCII that it lacks, the package that would draw it),
 * and nothing is written; or a whole PDF is written and every visible
 * character of the document has a glyph with an outline in that face, as
 * read back by the font reader itself.  Never a PDF with text drawn
 * empty. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmark.h>
#include "pdf_font.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char S_body[] =
	"Cost 1,234.5 USD, 10% tax: ABC xyz 0123456789.\n\n"
	"- weights 13.5 GB (fits)\n\n"
	/* through HarfBuzz and FriBidi: a combining accent, Arabic joined */
	"q\xCC\x81 \xD8\xA8\xD8\xA8\xD8\xA8\n";
static const char S_visible[] = "Cost1,234.5USD10%tax:ABCxyz0123456789.-weights13.5GB(fits)";

static char S_dir[64];
static char S_face[96];

/* A folder with the built bold and mono faces, made once. */
static int S_setup(void)
{
	if (S_dir[0])
		return 0;
	snprintf(S_dir, sizeof S_dir, "/tmp/tb-fuzz-fonts.XXXXXX");
	if (!mkdtemp(S_dir))
		return -1;
	const char *src = getenv("TB_FUZZ_FONT_DIR");
	static const char *const faces[] = { "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf" };
	for (int i = 0; i < 2; i++) {
		char from[512], to[128];
		snprintf(from, sizeof from, "%s/%s", src ? src : "build/fonts", faces[i]);
		snprintf(to, sizeof to, "%s/%s", S_dir, faces[i]);
		FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
		if (!in || !out)
			abort();
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(in);
		if (fclose(out) != 0)
			abort();
	}
	snprintf(S_face, sizeof S_face, "%s/DejaVuSans.ttf", S_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (S_setup() != 0)
		return 0;
	FILE *fp = fopen(S_face, "wb");
	if (!fp)
		abort();
	fwrite(data, 1, size, fp);
	if (fclose(fp) != 0)
		abort();

	cmark_node *root = cmark_parse_document(S_body, sizeof S_body - 1, CMARK_OPT_DEFAULT);
	tb_report_meta m;
	memset(&m, 0, sizeof m);
	m.title = "Fonts";
	m.author = "fuzz";
	m.date = "2024-01-01";
	m.version = "fuzz";
	m.sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	m.command = "trainbudget report";
	static const char *const no_fallbacks[] = { NULL };
	tb_pdf_options opt = { .paper = TB_PAPER_A4, .font_dir = S_dir, .fallback_fonts = no_fallbacks };
	tb_diags d;
	tb_diags_init(&d);
	tb_buf out;
	tb_buf_init(&out);
	int rc = tb_render_pdf_tree(root, &m, NULL, &opt, &out, &d);
	if ((rc == 0) != (d.errors == 0))
		abort();
	if (rc != 0) {
		/* refused: nothing written, and the face is named.  The title
		 * and furniture draw with the bold face, which is whole, so an
		 * error can only be the regular face's. */
		if (out.len != 0)
			abort();
		bool named = false;
		for (size_t i = 0; i < d.n && i < TB_DIAGS_MAX_SHOWN; i++) {
			const tb_diag *g = &d.items[i];
			unsigned cp = 0;
			if (g->file && strcmp(g->file, S_face) == 0)
				named = true;
			/* a character outside printable ASCII that the face lacks
			 * and no fallback draws: the package advice is right */
			else if (g->msg && sscanf(g->msg, "no font can draw U+%x", &cp) == 1 && cp >= 0x80)
				named = true;
		}
		if (!named) {
			for (size_t i = 0; i < d.n && i < TB_DIAGS_MAX_SHOWN; i++)
				fprintf(stderr, "%s: %s\n", d.items[i].file, d.items[i].msg);
			abort();
		}
	} else {
		if (out.len < 32 || memcmp(out.ptr, "%PDF-1.5\n", 9) != 0 ||
		    memcmp(out.ptr + out.len - 6, "%%EOF\n", 6) != 0)
			abort();
		/* every visible character has ink in the face that drew it */
		char why[160];
		tb_pdf_font *f = tb_pdf_font_load(S_face, why, sizeof why);
		if (!f)
			abort();
		for (const char *p = S_visible; *p; p++) {
			unsigned g = tb_pdf_font_glyph(f, (unsigned char)*p);
			if (g == 0 || !tb_pdf_font_inked(f, g))
				abort();
		}
		tb_pdf_font_free(f);
	}
	tb_buf_release(&out);
	tb_diags_release(&d);
	cmark_node_free(root);
	return 0;
}
