/* pdf_signoff.c: the sign-off page: a block per role (the template's
 * {{signoff ...}} roles, else Requester, Reviewer and Approver) with its
 * name, signature and date lines and an unsigned signature field over the
 * signature line; then the reproducibility block, every input with its
 * digest and the command that regenerates the document. */
#include "pdf_doc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/sha256.h"
#include "trainbudget/version.h"

static const char *S_str(const char *s)
{
	return s ? s : "";
}

/* "Inputs SHA-256", "Proposals SHA-256": what the printed hash is of. */
void tb_pdf_hash_label(const tb_report_meta *m, char *out, size_t cap)
{
	const char *of = m->hash_of && m->hash_of[0] ? m->hash_of : "scenario";
	snprintf(out, cap, "%c%s SHA-256", of[0] >= 'a' && of[0] <= 'z' ? of[0] - 'a' + 'A' : of[0],
	         of + 1);
}

/* One line of the reproducibility block: a bold label and what it names
 * (a file as published, an override), then the value below it.  Only
 * machine text in mono: the face is embedded only when used; the command
 * wraps between its words, not inside them. */
static void S_repro_row(tb_pdf_doc *st, const char *label, const char *detail,
                        const char *value, bool mono)
{
	double x = tb_pdf_draw_body_x(st), w = tb_pdf_draw_body_w(st);
	tb_pdf_para p;
	tb_pdf_para_init(&p, 8.5);
	tb_pdf_para_add(&p, TB_PDF_BOLD, label, strlen(label));
	if (detail && detail[0]) {
		p.pending_space = true;
		tb_pdf_para_add(&p, 0, detail, strlen(detail));
	}
	tb_pdf_para_opts lo = {x, w, false, false, tb_pdf_black};
	tb_pdf_draw_para(st, &p, &lo);
	tb_pdf_para_release(&p);
	tb_pdf_para_init(&p, 8);
	tb_pdf_para_add(&p, mono ? TB_PDF_MONO : 0, value, strlen(value));
	tb_pdf_para_opts vo = {x + 10, w - 10, false, false, tb_pdf_black};
	tb_pdf_draw_para(st, &p, &vo);
	tb_pdf_para_release(&p);
	st->y -= 5;
}

void tb_pdf_signoff_page(tb_pdf_doc *st)
{
	const tb_report_meta *m = st->meta;
	static const char *const defaults[3] = {"Requester", "Reviewer", "Approver"};
	const char *const *roles = m->nroles ? m->roles : defaults;
	size_t nroles = m->nroles ? m->nroles : 3;
	/* both blocks on the last page, together */
	if (!tb_pdf_draw_page_empty(st))
		tb_pdf_draw_new_page(st);
	tb_pdf_tag_open(st, "Div");
	tb_pdf_tag_mark(st);
	tb_pdf_draw_simple_para(st, TB_PDF_BOLD, 14.5, tb_pdf_black, "Sign-off", 6);
	tb_pdf_draw_bookmark(st, "Sign-off", NAN);
	tb_pdf_draw_simple_para(st, 0, TB_PDF_BODY_PT, tb_pdf_black,
	                        "By signing, each person confirms they have read this estimate "
	                        "and the assumptions it rests on.", 10);
	double x = tb_pdf_draw_body_x(st), w = tb_pdf_draw_body_w(st);
	static const char *const fields[3] = {"Name", "Signature", "Date"};
	for (size_t r = 0; r < nroles; r++) {
		tb_pdf_draw_need(st, 80);
		tb_pdf_draw_label(st, x, st->y - 11, TB_PDF_BOLD, 11, tb_pdf_black, roles[r]);
		st->y -= 22;
		for (int f = 0; f < 3; f++) {
			double base = st->y - 14;
			if (f == 1)
				base -= 10; /* room to sign */
			tb_pdf_draw_label(st, x + 6, base, 0, TB_PDF_BODY_PT, tb_pdf_grey, fields[f]);
			/* a field a reader signs in, over the line */
			if (f == 1)
				tb_pdf_draw_sig_field(st, roles[r], x + 70, base - 2, x + w * 0.75, base + 26);
			tb_pdf_draw_stroke_rgb(st->page, tb_pdf_grey);
			tb_pdf_draw_line_width(st->page, 0.6);
			tb_pdf_draw_move_to(st->page, (x + 70), (base - 2));
			tb_pdf_draw_line_to(st->page, (x + w * 0.75), (base - 2));
			tb_pdf_draw_op(st->page, "S");
			st->y -= f == 1 ? 30 : 20;
		}
		st->y -= 8;
	}
	st->y -= 6;
	tb_pdf_draw_need(st, 90);
	tb_pdf_draw_simple_para(st, TB_PDF_BOLD, 12, tb_pdf_black, "Reproducibility", 4);
	char label[48];
	tb_pdf_hash_label(m, label, sizeof label);
	const tb_signoff *so = m->signoff;
	S_repro_row(st, label, so ? "(one digest over everything below)" : NULL, S_str(m->sha256), true);
	static const char *const what[TB_INPUT_KINDS] = {
		"Scenario", "Model config", "Template", "Measured log", "Pilot scenario", "Profiler trace",
	};
	for (size_t i = 0; so && i < so->nfiles; i++)
		S_repro_row(st, what[so->files[i].kind], so->files[i].path, so->files[i].sha256, true);
	for (int k = 0; so && k < 2; k++) {
		char *const *v = k ? so->sweeps : so->sets;
		for (size_t i = 0; i < (k ? so->nsweeps : so->nsets); i++) {
			char hex[65];
			tb_sha256_hex(v[i], strlen(v[i]), hex);
			S_repro_row(st, k ? "Sweep (--sweep)" : strchr(v[i], '=') ? "Override (--set)"
			            : "Override (--unset)", v[i], hex, true);
		}
	}
	S_repro_row(st, "Tool version", NULL, m->version && m->version[0] ? m->version : TB_VERSION,
	            false);
	S_repro_row(st, "Regenerate with", NULL, S_str(m->command), true);
	tb_pdf_tag_unmark(st);
	tb_pdf_tag_close(st);
}

