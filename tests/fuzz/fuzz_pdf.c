/* fuzz_pdf.c: libFuzzer target for the PDF back end on any text.
 *
 * The input's first line is the title (and the author), the rest a
 * Markdown body parsed by cmark: any bytes, any script, any nesting.
 * tb_render_pdf_tree must either write a whole PDF and report no error, or
 * report an error (a character no font draws) and write nothing.  Fonts
 * come from $TB_FUZZ_FONT_DIR (default build/fonts) and the system's
 * fallbacks, as for the CLI. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmark.h>
#include "trainbudget/diag.h"
#include "trainbudget/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t nl = 0;
	while (nl < size && s[nl] != '\n')
		nl++;
	char *title = malloc(nl + 1);
	if (!title)
		return 0;
	memcpy(title, s, nl);
	title[nl] = '\0';
	const char *body = nl < size ? s + nl + 1 : "";
	size_t body_len = nl < size ? size - nl - 1 : 0;
	cmark_node *root = cmark_parse_document(body, body_len, CMARK_OPT_DEFAULT);

	tb_report_meta m;
	memset(&m, 0, sizeof m);
	m.title = title;
	m.author = title;
	m.date = "2024-01-01";
	m.version = "fuzz";
	m.sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	m.command = "trainbudget report";
	const char *dir = getenv("TB_FUZZ_FONT_DIR");
	tb_pdf_options opt = { .paper = TB_PAPER_A4, .font_dir = dir ? dir : "build/fonts" };
	tb_diags d;
	tb_diags_init(&d);
	tb_buf out;
	tb_buf_init(&out);
	int rc = tb_render_pdf_tree(root, &m, NULL, &opt, &out, &d);
	if ((rc == 0) != (d.errors == 0))
		abort();
	if (rc == 0 && (out.len < 32 || memcmp(out.ptr, "%PDF-1.5\n", 9) != 0 ||
	                memcmp(out.ptr + out.len - 6, "%%EOF\n", 6) != 0))
		abort();
	if (rc != 0 && out.len != 0)
		abort();
	tb_buf_release(&out);
	tb_diags_release(&d);
	cmark_node_free(root);
	free(title);
	return 0;
}
