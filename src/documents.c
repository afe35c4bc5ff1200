/* documents.c: the documents of a report model (documents.h). */
#include "documents.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmark.h>

#include "trainbudget/buf.h"
#include "trainbudget/render.h"
#include "thread.h"

#define S_SYSTEM_FONT_DIR "/usr/share/fonts/truetype/dejavu"

#ifndef TB_DATADIR
#define TB_DATADIR "/usr/local/share/trainbudget"
#endif

static bool S_has_fonts(const char *dir)
{
	tb_buf p;
	tb_buf_init(&p);
	tb_buf_printf(&p, "%s/DejaVuSans.ttf", dir);
	bool ok = access(p.ptr, R_OK) == 0;
	tb_buf_release(&p);
	return ok;
}

/* Where the PDF's fonts are: --font-dir, TB_FONT_DIR, then the subset
 * fonts the build makes beside the binary (build/fonts) or installs
 * (DATADIR/fonts), which libharu embeds three times faster, else Debian's
 * full DejaVu.  Writes into *buf, which the caller releases. */
static const char *S_font_dir(const char *given, tb_buf *buf)
{
	const char *env = getenv("TB_FONT_DIR");
	if (given && *given)
		return given;
	if (env && *env)
		return env;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			tb_buf_printf(buf, "%s/fonts", exe);
			if (S_has_fonts(buf->ptr))
				return buf->ptr;
			tb_buf_truncate(buf, 0);
		}
	}
	tb_buf_puts(buf, TB_DATADIR "/fonts");
	if (S_has_fonts(buf->ptr))
		return buf->ptr;
	return S_SYSTEM_FONT_DIR;
}

/* The PDF, drawn on a thread of its own while the other formats are
 * written (it is the longest of them): it only reads the report (the
 * Markdown and HTML back ends set their blocks' on_enter and on_exit,
 * which it never reads) and writes its own buffer and d, which nothing
 * else touches until it is joined.  The files come out in the same
 * order, with the same bytes, as drawn one after the other. */
typedef struct S_pdf_job {
	const tb_report *r;
	tb_pdf_options po;
	tb_buf out;
	char sha256[65];        /* the file's, from its writer */
	tb_diags *d;
	int rc;
} S_pdf_job;

/* cmark's getters may keep a NUL-terminated copy of a node's string the
 * first time they are asked (cmark_chunk_to_cstr, in the releases that
 * store chunks): asked once here, before two threads read the tree, they
 * only read after. */
static void S_settle_tree(cmark_node *root)
{
	if (!root)
		return;
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		if (ev != CMARK_EVENT_ENTER)
			continue;
		cmark_node *n = cmark_iter_get_node(it);
		(void)cmark_node_get_literal(n);
		(void)cmark_node_get_url(n);
		(void)cmark_node_get_title(n);
		(void)cmark_node_get_fence_info(n);
		(void)cmark_node_get_on_enter(n);
		(void)cmark_node_get_on_exit(n);
	}
	cmark_iter_free(it);
}

static void *S_pdf_run(void *arg)
{
	S_pdf_job *j = arg;
	j->rc = tb_render_pdf(j->r, &j->po, &j->out, j->d);
	return NULL;
}

tb_exit tb_documents_render(const tb_cli *cli, const tb_report *r, const char *name,
                            tb_outputs *outs, tb_diags *d, void (*also)(void *), void *also_ctx)
{
	S_pdf_job pj;
	memset(&pj, 0, sizeof pj);
	tb_buf fontdir;
	tb_buf_init(&fontdir);
	pthread_t th;
	bool threaded = false;
	tb_pdf_helper *help = NULL;
	if (cli->formats & TB_OUT_PDF) {
		pj.r = r;
		pj.po = (tb_pdf_options){ .paper = cli->paper,
		                          .font_dir = S_font_dir(cli->font_dir, &fontdir),
		                          .no_pdfa = cli->no_pdfa,
		                          .sha256_hex = pj.sha256 };
		pj.d = d;
		tb_buf_init(&pj.out);
		/* alone, it is drawn here */
		if ((cli->formats & (TB_OUT_MD | TB_OUT_HTML)) || also) {
			S_settle_tree(tb_report_root(r));
			help = tb_pdf_helper_new();
			pj.po.helper = help;
			threaded = tb_thread_start(&th, S_pdf_run, &pj);
			if (!threaded) {
				pj.po.helper = NULL;
				tb_pdf_helper_free(help);
				help = NULL;
			}
		}
	}
	if (cli->formats & TB_OUT_MD) {
		tb_buf prefix;
		tb_buf_init(&prefix);
		tb_buf_printf(&prefix, "%s-", name);
		char *md = tb_render_md(r, prefix.ptr);
		tb_outputs_add(outs, name, ".md", md, strlen(md));
		/* the pages laid out meanwhile first: the PDF's writer waits
		 * for them, these documents only for the delivery */
		if (help)
			tb_pdf_helper_work_ready(help);
		for (size_t i = 0; i < tb_report_nblocks(r); i++) {
			const tb_block *blk = tb_report_block_at(r, i);
			/* a chart Markdown shows as its table has no picture */
			if (!blk || blk->kind != TB_BLOCK_CHART || !tb_outputs_safe_id(blk->chart.id) ||
			    blk->table.nrows > 0)
				continue;
			tb_buf suffix;
			tb_buf_init(&suffix);
			tb_buf_printf(&suffix, "-%s.svg", blk->chart.id);
			char *svg = tb_render_svg(&blk->chart);
			tb_outputs_add(outs, name, suffix.ptr, svg, strlen(svg));
			tb_buf_release(&suffix);
		}
		tb_buf_release(&prefix);
	}
	if (help)
		tb_pdf_helper_work_ready(help);
	if (cli->formats & TB_OUT_HTML) {
		char *html = tb_render_html(r);
		tb_outputs_add(outs, name, ".html", html, strlen(html));
	}
	if (help)
		tb_pdf_helper_work_ready(help);
	if (also)
		also(also_ctx);
	if (cli->formats & TB_OUT_PDF) {
		if (threaded) {
			/* this thread's documents are done: it deflates the
			 * PDF's pages beside the one drawing it */
			tb_pdf_helper_work(help);
			pthread_join(th, NULL);
			tb_pdf_helper_free(help);
		} else {
			S_pdf_run(&pj);
		}
		tb_buf_release(&fontdir);
		if (pj.rc != 0 || d->errors) {
			tb_buf_release(&pj.out);
			return TB_EXIT_OUTPUT;
		}
		size_t len = 0;
		char *data = tb_buf_detach(&pj.out, &len);
		tb_outputs_add_hashed(outs, name, ".pdf", data, len, pj.sha256);
	}
	tb_buf_release(&fontdir);
	return TB_EXIT_OK;
}
