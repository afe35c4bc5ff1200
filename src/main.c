/* main.c: runs what the command line asks for.  The only file that prints
 * or chooses an exit status; everything else returns data or diagnostics. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "documents.h"
#include "outputs.h"
#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/compare.h"
#include "trainbudget/diag.h"
#include "trainbudget/fileio.h"
#include "trainbudget/fmt.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"
#include "trainbudget/stages.h"
#include "trainbudget/sweep.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

/* ---- printing --------------------------------------------------------- */

static void S_print_diags(const tb_diags *d)
{
	if (d->n == 0)
		return;
	char *s = tb_diags_format(d);
	fputs(s, stderr);
	free(s);
}

/* Text from the command line or a file, printed so that control
 * characters show as escapes instead of acting on the terminal. */
static void S_put_escaped(FILE *f, const char *s, const char *keep)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_diags_escape(&b, s, strlen(s), keep);
	fputs(b.ptr, f);
	tb_buf_release(&b);
}

/* Set when the program started with standard output closed (`>&-`). */
static bool S_stdout_closed;

/* A descriptor 0-2 closed at start is opened on /dev/null, so no file the
 * program opens later becomes "standard output" by accident (and receives
 * the list of paths).  A closed standard output is remembered: nobody
 * receives what the command prints, which is an output error. */
static void S_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if (fd == STDOUT_FILENO)
			S_stdout_closed = true;
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got >= 0 && got != fd) {
			dup2(got, fd);
			close(got);
		}
	}
}

static bool S_stdout_reported;

static void S_stdout_error(int err)
{
	fprintf(stderr, "trainbudget: cannot write to standard output: %s\n", strerror(err));
	S_stdout_reported = true;
}

/* A report nobody receives is a failure: a full disk or a closed pipe on
 * standard output must not exit 0. */
static tb_exit S_finish_stdout(tb_exit rc)
{
	int err = EBADF;
	if (S_stdout_closed || (err = 0, fflush(stdout) != 0) || ferror(stdout)) {
		if (!S_stdout_reported)
			S_stdout_error(err ? err : errno);
		return TB_EXIT_OUTPUT;
	}
	return rc;
}

/* ---- loading ---------------------------------------------------------- */

/* A scenario's text as read (the built-in question's for NULL): a sweep
 * loads it again per point. */
typedef struct S_source {
	const char *path;
	char *text;
	size_t len;
} S_source;

static tb_scenario *S_load_source(const char *file, const tb_cli *cli, S_source *src,
                                  tb_diags *d)
{
	memset(src, 0, sizeof *src);
	if (!file) {
		src->path = "<builtin>";
		src->text = tb_xstrdup(tb_scenario_default_text());
		src->len = strlen(src->text);
	} else {
		src->path = file;
		if (tb_fileio_read(file, TB_FILEIO_READ_MAX_BYTES, &src->text, &src->len, d) != 0)
			return NULL;
	}
	tb_scenario *sc = tb_scenario_load(src->path, src->text, src->len, cli->sets, cli->nsets, d);
	if (sc && cli->npilots && !tb_scenario_calibrate(sc, cli->pilots, cli->npilots, d)) {
		tb_scenario_free(sc);
		return NULL;
	}
	/* --name replaces the file's stem everywhere it shows: the output
	 * files, the report's scenario line, JSON's scenario.name. */
	if (sc && cli->name) {
		free(sc->name);
		sc->name = tb_xstrdup(cli->name);
	}
	return sc;
}

/* ---- a long search's progress, on a terminal only ------------------------ */

typedef struct S_progress {
	struct timespec start, last;
	bool shown;
} S_progress;

static double S_since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* A line on standard error, rewritten at most five times a second once the
 * search has run for a quarter of a second; wiped when it ends.  Never on a file or
 * a pipe: what is written there must not depend on the machine's speed. */
static void S_progress_line(void *ctx, uint64_t done, uint64_t total)
{
	S_progress *p = ctx;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (done >= total) {
		if (p->shown)
			fputs("\r\033[K", stderr);
		p->shown = false;
		return;
	}
	if (S_since(&p->start, &now) < 0.25 || (p->shown && S_since(&p->last, &now) < 0.2))
		return;
	p->last = now;
	p->shown = true;
	fprintf(stderr, "\rtrainbudget: searching layouts: %2.0f%% of %.3g candidates",
	        total ? 100.0 * (double)done / (double)total : 0.0, (double)total);
	fflush(stderr);
}

/* The search's space with the progress line attached when standard error
 * is a terminal; sp NULL: the scenario's (tb_plan_search's defaults). */
static void S_with_progress(tb_plan_space *out, const tb_plan_space *sp, S_progress *p)
{
	if (sp)
		*out = *sp;
	else
		memset(out, 0, sizeof *out);
	memset(p, 0, sizeof *p);
	if (!isatty(STDERR_FILENO))
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	out->progress = S_progress_line;
	out->progress_ctx = p;
}

static void S_compute_plan(const tb_inputs *in, tb_budget *b, const tb_plan_space *sp)
{
	tb_plan_space with;
	S_progress p;
	S_with_progress(&with, sp, &p);
	tb_budget_compute_plan(in, b, &with);
}

typedef struct S_risk_job {
	const tb_inputs *in;
	tb_budget *b;
	bool done;
} S_risk_job;

static void S_risk_run(void *arg)
{
	S_risk_job *j = arg;
	tb_budget_compute_risk(j->in, j->b);
	j->done = true;
}

/* The one answer (answer.h: the scenario's inputs become the priced
 * ones, so every section and format describes the same layout), its
 * stages, then the layout search in sp over the priced inputs: the
 * scenario's own row of every command is the priced layout, and what
 * was written, where it cannot run, is the answer's to say.  The risk's
 * 4,096 runs go on the search's second thread before it takes its share
 * (tb_plan_space.beside): they read the priced time and write the
 * budget's risk alone, the search its plan and warnings alone.  A search
 * without a second thread leaves them to this one, after it.  A staged
 * run's stages write the risk again, so there the order stays. */
static void S_answer_and_plan(tb_scenario *sc, tb_budget *b, const tb_plan_space *sp)
{
	if (sc->nstages > 0) {
		tb_budget_compute_answer(&sc->inputs, &sc->inputs, b);
		tb_budget_compute_stages(&sc->inputs, sc->stages, sc->nstages, b);
		S_compute_plan(&sc->inputs, b, sp);
		return;
	}
	tb_budget_price_answer(&sc->inputs, &sc->inputs, b);
	S_risk_job j = { &sc->inputs, b, false };
	tb_plan_space with;
	if (sp)
		with = *sp;
	else
		memset(&with, 0, sizeof with);
	with.beside = S_risk_run;
	with.beside_ctx = &j;
	S_compute_plan(&sc->inputs, b, &with);
	if (!j.done)
		S_risk_run(&j);
}

/* NULL file: the built-in question. */
static tb_scenario *S_load(const char *file, const tb_cli *cli, tb_diags *d)
{
	S_source src;
	tb_scenario *sc = S_load_source(file, cli, &src, d);
	free(src.text);
	return sc;
}

/* The sweep of a loaded scenario, or NULL with errors in d (or when the
 * command line asks for none). */
static tb_sweep *S_sweep(const tb_cli *cli, const S_source *src, const tb_scenario *sc,
                         tb_diags *d)
{
	if (!cli->nsweeps)
		return NULL;
	if (sc->nstages > 0) {
		/* a sweep point is one run; a staged run's would price its base */
		tb_diags_add(d, TB_DIAG_ERROR, src->path, NULL, 0, 0, 0,
		             "--sweep varies one run, and this scenario is a run in %d stages; expected "
		             "a scenario without stages (--unset stages sweeps its settings alone)",
		             sc->nstages);
		return NULL;
	}
	return tb_sweep_run_calibrated(cli->sweeps, cli->nsweeps, src->path, src->text, src->len,
	                               cli->sets, cli->nsets,
	                               sc->inputs.calib.known ? &sc->inputs.calib : NULL, d);
}

static bool S_sweep_inputs(const tb_cli *cli, tb_scenario *sc, const tb_sweep *sw, tb_diags *d)
{
	return !sw || tb_sweep_add_inputs(sw, sc, (const char *const *)cli->sweeps, cli->nsweeps,
	                                  sc->path, d);
}

/* ---- check ------------------------------------------------------------ */

static tb_exit S_cmd_check(const tb_cli *cli)
{
	tb_diags d;
	tb_diags_init(&d);
	for (size_t i = 0; i < cli->nfiles; i++) {
		size_t before = d.errors;
		tb_scenario *sc = S_load(cli->files[i], cli, &d);
		if (sc && d.errors == before) {
			S_put_escaped(stdout, strcmp(cli->files[i], "-") == 0 ? "<stdin>" : cli->files[i], NULL);
			fputs(": ok\n", stdout);
		}
		tb_scenario_free(sc);
	}
	S_print_diags(&d);
	tb_exit rc = d.errors ? TB_EXIT_INPUT : TB_EXIT_OK;
	tb_diags_release(&d);
	return S_finish_stdout(rc);
}

/* ---- estimate --------------------------------------------------------- */

static tb_exit S_cmd_estimate(const tb_cli *cli)
{
	tb_diags d;
	tb_diags_init(&d);
	S_source src;
	tb_scenario *sc = S_load_source(cli->nfiles ? cli->files[0] : NULL, cli, &src, &d);
	tb_sweep *sw = sc ? S_sweep(cli, &src, sc, &d) : NULL;
	bool failed = !sc || (cli->nsweeps && !sw) || !S_sweep_inputs(cli, sc, sw, &d);
	S_print_diags(&d);
	tb_diags_release(&d);
	free(src.text);
	if (failed) {
		tb_sweep_free(sw);
		tb_scenario_free(sc);
		return TB_EXIT_INPUT;
	}
	tb_budget *b = tb_xmalloc(sizeof *b);   /* cleared by the answer (tb_budget_clear) */
	/* the text prints the search's best layout alone: no list, rank or
	 * counts are made (plan.h; the same best found) */
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.best_only = !cli->json;
	S_answer_and_plan(sc, b, &sp);
	char *out = cli->json ? tb_render_json_sweep(sc, b, sw) : tb_render_text(sc, b);
	fputs(out, stdout);
	free(out);
	if (sw && !cli->json) {
		/* the values come from the command line: shown, never obeyed */
		out = tb_render_text_sweep(sw);
		S_put_escaped(stdout, out, "\n");
		free(out);
	}
	free(b);
	tb_sweep_free(sw);
	tb_scenario_free(sc);
	return S_finish_stdout(TB_EXIT_OK);
}

/* ---- report ----------------------------------------------------------- */

/* SOURCE_DATE_EPOCH as UTC YYYY-MM-DD (reproducible-builds.org).  Returns
 * 0 and leaves out empty when unset; -1 when set but not a plain count of
 * seconds, which must not silently become "no date" on a signed page. */
static int S_source_date(char out[16])
{
	out[0] = '\0';
	const char *s = getenv("SOURCE_DATE_EPOCH");
	if (!s)
		return 0;
	if (!*s || strlen(s) > 12)
		return -1;
	long long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (v > 253402300799LL)     /* 9999-12-31T23:59:59Z */
		return -1;
	time_t t = (time_t)v;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(out, 16, "%Y-%m-%d", &tm) == 0)
		return -1;
	return 0;
}

/* Quotes a word for a POSIX shell when it needs it, so the reproducibility
 * line can be pasted back as it stands. */
static void S_shell_word(tb_buf *b, const char *w)
{
	bool plain = *w != '\0';
	for (const char *p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		            "0123456789_-./=:,+@%", *p))
			plain = false;
	if (plain) {
		tb_buf_puts(b, w);
		return;
	}
	tb_buf_putc(b, '\'');
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			tb_buf_puts(b, "'\\''");
		else
			tb_buf_putc(b, *p);
	}
	tb_buf_putc(b, '\'');
}

/* plan's search options as they were given, for the reproducibility line. */
static void S_plan_options(tb_buf *b, const tb_plan_space *sp)
{
	if (sp->objective == TB_PLAN_BY_COST)
		tb_buf_puts(b, " --objective cost");
	if (sp->top)
		tb_buf_printf(b, " --top %d", sp->top);
	const struct { const char *opt; int n; const int64_t *v; } lists[2] = {
		{ " --count ", sp->n_counts, sp->counts },
		{ " --global-batch ", sp->n_batches, sp->batches },
	};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < lists[k].n; i++)
			tb_buf_printf(b, "%s%lld", i ? "," : lists[k].opt, (long long)lists[k].v[i]);
	for (int i = 0; i < sp->n_gpus; i++) {
		tb_buf_printf(b, "%s%s", i ? "," : " --gpu ", sp->gpus[i].gpu.name);
		if (sp->gpus[i].price_given)
			tb_buf_printf(b, "=%.15g", sp->gpus[i].price_per_gpu_hour);
	}
	if (sp->tensor_across_nodes)
		tb_buf_puts(b, " --tensor-across-nodes");
	if (sp->max_virtual)
		tb_buf_printf(b, " --max-virtual %lld", (long long)sp->max_virtual);
}

static char *S_command_line(const tb_cli *cli)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_puts(&b, cli->cmd == TB_CMD_COMPARE ? "trainbudget compare"
	                : cli->cmd == TB_CMD_PLAN ? "trainbudget plan" : "trainbudget report");
	/* paths as the report lists its inputs: never where the user's
	 * files live (an absolute path shows only its base name) */
	for (size_t i = 0; i < cli->nfiles; i++) {
		char *shown = tb_signoff_path(cli->files[i]);
		tb_buf_putc(&b, ' ');
		S_shell_word(&b, shown);
		free(shown);
	}
	if (cli->name) {
		tb_buf_puts(&b, " --name ");
		S_shell_word(&b, cli->name);
	}
	for (size_t i = 0; i < cli->nsets; i++) {
		tb_buf o;
		tb_buf_init(&o);
		tb_scenario_public_override(&o, cli->sets[i]);
		tb_buf_puts(&b, strchr(cli->sets[i], '=') ? " --set " : " --unset ");
		S_shell_word(&b, o.ptr);
		tb_buf_release(&o);
	}
	for (size_t i = 0; i < cli->nsweeps; i++) {
		tb_buf o;
		tb_buf_init(&o);
		tb_scenario_public_override(&o, cli->sweeps[i]);
		tb_buf_puts(&b, " --sweep ");
		S_shell_word(&b, o.ptr);
		tb_buf_release(&o);
	}
	for (size_t i = 0; i < cli->npilots; i++) {
		char *shown = tb_signoff_path(cli->pilots[i]);
		tb_buf_puts(&b, " --calibrate ");
		S_shell_word(&b, shown);
		free(shown);
	}
	if (cli->cmd == TB_CMD_PLAN)
		S_plan_options(&b, &cli->plan);
	if (cli->template_path) {
		char *shown = tb_signoff_path(cli->template_path);
		tb_buf_puts(&b, " --template ");
		S_shell_word(&b, shown);
		free(shown);
	}
	if (cli->paper == TB_PAPER_LETTER)
		tb_buf_puts(&b, " --paper letter");
	return tb_buf_detach(&b, NULL);
}

/* The scenario's stem, unless it could escape the output directory or
 * hide the file; then a fixed name. */
static const char *S_output_name(const tb_scenario *sc, const char *file)
{
	const char *n = sc->name;
	bool ok = n && *n && *n != '.' && *n != '<' && strcmp(n, "-") != 0 && strlen(n) < 200;
	for (const char *p = n; ok && *p; p++)
		if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20)
			ok = false;
	if (ok)
		return n;
	if (file && strcmp(file, "-") == 0)
		return "stdin";
	return "default";
}

/* DIR/NAME as the user gave DIR, for the list of paths written. */
static void S_print_path(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	tb_buf p;
	tb_buf_init(&p);
	tb_buf_printf(&p, "%s%s%s", dir, len && dir[len - 1] != '/' ? "/" : "", name);
	S_put_escaped(stdout, p.ptr, NULL);
	fputc('\n', stdout);
	tb_buf_release(&p);
}

/* The template is read once: the same bytes are expanded and hashed, and
 * join the scenario's inputs so the JSON beside the documents lists it and
 * prints the same digest.  False (an error in d) when it cannot be read;
 * *text stays NULL without --template. */
static bool S_template(const tb_cli *cli, tb_scenario *sc, char **text, size_t *len,
                       tb_diags *d)
{
	*text = NULL;
	*len = 0;
	if (!cli->template_path)
		return true;
	*text = tb_report_read_template(cli->template_path, len, d);
	if (!*text)
		return false;
	tb_scenario_add_input(sc, TB_INPUT_TEMPLATE, cli->template_path, *text, *len);
	return true;
}

/* What this thread does while the PDF is drawn: the report's JSON, and
 * the documents made so far written ahead into the output directory
 * (tb_fileio_set_stage), so that only the PDF, the JSON and the manifest
 * are left to write after the PDF. */
typedef struct S_json_job {
	const tb_scenario *sc;
	const tb_budget *b;
	const tb_sweep *sw;
	bool want;              /* the JSON is asked for */
	char *json;
	tb_fileio_set *early;   /* NULL: nothing written ahead */
	const tb_outputs *outs;
} S_json_job;

static void S_json_run(void *arg)
{
	S_json_job *j = arg;
	if (j->early)
		(void)tb_fileio_set_stage(j->early, j->outs->files, j->outs->n);
	if (j->want)
		j->json = tb_render_json_sweep(j->sc, j->b, j->sw);
}

/* tpl: the template S_template read (NULL: the built-in one). */
static tb_exit S_render_report(const tb_cli *cli, tb_scenario *sc,
                               const tb_budget *b, const tb_sweep *sw, const char *date,
                               const char *tpl, size_t tpl_len, tb_outputs *outs, tb_diags *d,
                               tb_fileio_set *early)
{
	const char *file = cli->nfiles ? cli->files[0] : NULL;
	const char *name = S_output_name(sc, file);
	tb_exit rc = TB_EXIT_OK;

	if (cli->formats & (TB_OUT_MD | TB_OUT_HTML | TB_OUT_PDF)) {
		char *command = S_command_line(cli);
		tb_report_options ro;
		memset(&ro, 0, sizeof ro);
		ro.template_path = cli->template_path;
		ro.template_text = tpl;
		ro.template_len = tpl_len;
		ro.date = *date ? date : NULL;
		ro.command = command;
		ro.sweep = sw;
		tb_report *r = tb_report_new(sc, b, &ro, d);
		if (!r) {
			free(command);
			return TB_EXIT_INPUT;
		}
		S_json_job jj = { sc, b, sw, (cli->formats & TB_OUT_JSON) != 0, NULL, early, outs };
		rc = tb_documents_render(cli, r, name, outs, d, jj.want || early ? S_json_run : NULL, &jj);
		tb_report_free(r);
		free(command);
		if (rc != TB_EXIT_OK) {
			free(jj.json);
			return rc;
		}
		if (jj.json) {
			tb_outputs_add(outs, name, ".json", jj.json, strlen(jj.json));
			return rc;
		}
	}
	if (rc == TB_EXIT_OK && (cli->formats & TB_OUT_JSON)) {
		char *json = tb_render_json_sweep(sc, b, sw);
		tb_outputs_add(outs, name, ".json", json, strlen(json));
	}
	return rc;
}

/* Replaces the set NAME in the output directory, then prints each path;
 * when the paths cannot be delivered the previous set is put back, so
 * exit 3 always means "nothing changed".  *sig: a signal caught while the
 * directory was held, for the caller to re-raise. */
static tb_exit S_write_report(const tb_cli *cli, const char *name, const tb_outputs *outs,
                              tb_diags *d, int *sig, tb_fileio_set *early)
{
	*sig = 0;
	if (S_stdout_closed) {
		*sig = early ? tb_fileio_set_end(early) : 0;
		S_stdout_error(EBADF);
		return TB_EXIT_OUTPUT;
	}
	tb_exit rc = TB_EXIT_OUTPUT;
	tb_fileio_set *set = early ? early : tb_fileio_set_begin(cli->out_dir, d);
	if (set && tb_fileio_set_commit(set, name, outs->files, outs->n, d) == 0) {
		for (size_t i = 0; i < outs->n; i++)
			S_print_path(cli->out_dir, outs->files[i].name);
		tb_buf manifest;
		tb_buf_init(&manifest);
		tb_buf_printf(&manifest, "%s.sha256", name);
		S_print_path(cli->out_dir, manifest.ptr);
		tb_buf_release(&manifest);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			S_stdout_error(errno);
			tb_fileio_set_rollback(set, d);
		} else {
			rc = TB_EXIT_OK;
		}
	}
	*sig = tb_fileio_set_end(set);
	return rc;
}

/* SOURCE_DATE_EPOCH's date into date[16]; false (said on stderr) when
 * it is set but not a date. */
static bool S_date(const char *cmd, char date[16])
{
	if (S_source_date(date) == 0)
		return true;
	fprintf(stderr, "trainbudget %s: SOURCE_DATE_EPOCH='", cmd);
	S_put_escaped(stderr, getenv("SOURCE_DATE_EPOCH"), NULL);
	fputs("' is not a date; expected whole seconds since 1970-01-01 UTC, e.g. 1767225600\n",
	      stderr);
	return false;
}

/* Dies of a signal caught while the directory was held, as its sender
 * expects, what was printed first flushed. */
static tb_exit S_die_of(int sig)
{
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	return (tb_exit)(128 + sig);
}

/* Writes what was rendered (the disk's first touch, but for a report's
 * documents written ahead into `early`, which it commits or drops), says
 * what happened, and dies of a signal that came while the directory was
 * held, as its sender expects. */
static tb_exit S_deliver(const tb_cli *cli, const char *name, tb_exit rc, tb_outputs *outs,
                         tb_diags *d, tb_fileio_set *early)
{
	int sig = 0;
	if (rc == TB_EXIT_OK && outs->n > 0)
		rc = S_write_report(cli, name, outs, d, &sig, early);
	else if (early)
		sig = tb_fileio_set_end(early);     /* what was written ahead, removed */
	S_print_diags(d);
	if (rc == TB_EXIT_OUTPUT && !sig)
		fprintf(stderr, "trainbudget %s: no file was written\n", tb_cli_cmd_name(cli->cmd));
	/* Interrupted: the directory is back as it was (or, when the signal
	 * came during the commit, holds the new set whole). */
	if (sig)
		return S_die_of(sig);
	return rc;
}

static tb_exit S_cmd_report(const tb_cli *cli)
{
	char date[16];
	if (!S_date("report", date))
		return TB_EXIT_USAGE;
	tb_diags d;
	tb_diags_init(&d);
	S_source src;
	tb_scenario *sc = S_load_source(cli->nfiles ? cli->files[0] : NULL, cli, &src, &d);
	tb_sweep *sw = sc ? S_sweep(cli, &src, sc, &d) : NULL;
	free(src.text);
	if (!sc || (cli->nsweeps && !sw) || !S_sweep_inputs(cli, sc, sw, &d)) {
		S_print_diags(&d);
		tb_diags_release(&d);
		tb_sweep_free(sw);
		tb_scenario_free(sc);
		return TB_EXIT_INPUT;
	}
	if (sc->date && *sc->date)
		snprintf(date, sizeof date, "%s", sc->date);

	/* the template first: when its PDF will need the text libraries, they
	 * open on another core while the answer is computed */
	char *tpl = NULL;
	size_t tpl_len = 0;
	bool tpl_ok = !(cli->formats & (TB_OUT_MD | TB_OUT_HTML | TB_OUT_PDF)) ||
	              S_template(cli, sc, &tpl, &tpl_len, &d);
	if (tpl && (cli->formats & TB_OUT_PDF))
		tb_render_pdf_prefetch(tpl, tpl_len);

	tb_budget *b = tb_xmalloc(sizeof *b);   /* cleared by the answer (tb_budget_clear) */
	S_answer_and_plan(sc, b, NULL);
	tb_outputs outs;
	memset(&outs, 0, sizeof outs);
	size_t errors_before = d.errors;
	/* the output directory taken now, when the PDF is drawn beside other
	 * documents: those are written into it while the PDF is drawn.  Only a
	 * directory already there: a run that fails makes none.  Where it
	 * cannot be taken, the delivery tries again and says why. */
	tb_fileio_set *early = NULL;
	struct stat od;
	if (tpl_ok && (cli->formats & TB_OUT_PDF) && (cli->formats & ~TB_OUT_PDF) && !S_stdout_closed &&
	    stat(cli->out_dir, &od) == 0 && S_ISDIR(od.st_mode)) {
		tb_diags none;
		tb_diags_init(&none);
		early = tb_fileio_set_begin(cli->out_dir, &none);
		tb_diags_release(&none);
		int esig = early ? 0 : tb_fileio_signal();
		if (esig) {
			/* a signal while waiting for the directory: nothing written */
			tb_render_pdf_prefetch_wait();
			free(tpl);
			tb_diags_release(&d);
			free(b);
			tb_sweep_free(sw);
			tb_scenario_free(sc);
			return S_die_of(esig);
		}
	}
	tb_exit rc = tpl_ok ? S_render_report(cli, sc, b, sw, date, tpl, tpl_len, &outs, &d, early)
	             : TB_EXIT_INPUT;
	if (rc == TB_EXIT_OK && d.errors > errors_before)
		rc = TB_EXIT_INPUT;
	tb_render_pdf_prefetch_wait();
	free(tpl);
	rc = S_deliver(cli, S_output_name(sc, cli->nfiles ? cli->files[0] : NULL), rc, &outs, &d, early);
	tb_outputs_release(&outs);
	tb_diags_release(&d);
	free(b);
	tb_sweep_free(sw);
	tb_scenario_free(sc);
	return S_finish_stdout(rc);
}

/* ---- compare ----------------------------------------------------------- */

/* NAME for a comparison's files: the stems joined, "a-vs-b", when each is
 * a safe name and the whole is at most 80 characters; else "comparison". */
static char *S_compare_name(const tb_compare *c, const tb_cli *cli)
{
	tb_buf b;
	tb_buf_init(&b);
	bool ok = true;
	for (size_t i = 0; i < c->n && ok; i++) {
		const char *stem = S_output_name(c->p[i].sc, cli->files[i]);
		ok = strcmp(stem, c->p[i].sc->name ? c->p[i].sc->name : "") == 0;
		for (size_t k = 0; k < i; k++)
			if (strcmp(c->p[k].sc->name, c->p[i].sc->name) == 0)
				ok = false;     /* the same stem twice: "a-vs-a" says nothing */
		tb_buf_printf(&b, "%s%s", i ? "-vs-" : "", stem);
	}
	if (!ok || b.len > 80) {
		tb_buf_truncate(&b, 0);
		tb_buf_puts(&b, "comparison");
	}
	return tb_buf_detach(&b, NULL);
}

static tb_exit S_cmd_compare(const tb_cli *cli)
{
	char date[16];
	if (!S_date("compare", date))
		return TB_EXIT_USAGE;
	tb_diags d;
	tb_diags_init(&d);
	tb_compare_input in[TB_COMPARE_MAX];
	memset(in, 0, sizeof in);
	bool unread = false;
	for (size_t i = 0; i < cli->nfiles; i++) {
		in[i].path = cli->files[i];
		char *text = NULL;
		if (tb_fileio_read(cli->files[i], TB_FILEIO_READ_MAX_BYTES, &text, &in[i].len, &d) != 0)
			unread = true;
		in[i].text = text;
	}
	tb_compare *c = NULL;
	if (unread) {
		/* still every error of the files that could be read */
		for (size_t i = 0; i < cli->nfiles; i++)
			if (in[i].text)
				tb_scenario_free(tb_scenario_load(in[i].path, in[i].text, in[i].len,
				                                  cli->sets, cli->nsets, &d));
	} else {
		c = tb_compare_new(in, cli->nfiles, cli->sets, cli->nsets, cli->sweeps, cli->nsweeps, &d);
	}
	for (size_t i = 0; i < cli->nfiles; i++)
		free((char *)in[i].text);
	if (!c) {
		S_print_diags(&d);
		tb_diags_release(&d);
		return TB_EXIT_INPUT;
	}
	char *name = S_compare_name(c, cli);
	tb_outputs outs;
	memset(&outs, 0, sizeof outs);
	size_t errors_before = d.errors;
	tb_exit rc = TB_EXIT_OK;
	if (cli->formats & (TB_OUT_MD | TB_OUT_HTML | TB_OUT_PDF)) {
		/* a user template is read once: hashed, then expanded */
		char *tpl = NULL;
		size_t tpl_len = 0;
		if (cli->template_path) {
			tpl = tb_report_read_template(cli->template_path, &tpl_len, &d);
			if (tpl)
				tb_compare_add_template(c, tpl, tpl_len);
		}
		char *command = S_command_line(cli);
		tb_report_options ro;
		memset(&ro, 0, sizeof ro);
		ro.template_path = cli->template_path;
		ro.template_text = tpl;
		ro.template_len = tpl_len;
		ro.date = *date ? date : NULL;
		ro.command = command;
		tb_report *r = !cli->template_path || tpl ? tb_report_new_compare(c, &ro, &d) : NULL;
		rc = r ? tb_documents_render(cli, r, name, &outs, &d, NULL, NULL) : TB_EXIT_INPUT;
		tb_report_free(r);
		free(tpl);
		free(command);
	}
	if (rc == TB_EXIT_OK && (cli->formats & TB_OUT_JSON)) {
		char *json = tb_render_json_compare(c);
		tb_outputs_add(&outs, name, ".json", json, strlen(json));
	}
	if (rc == TB_EXIT_OK && d.errors > errors_before)
		rc = TB_EXIT_INPUT;
	rc = S_deliver(cli, name, rc, &outs, &d, NULL);
	tb_outputs_release(&outs);
	tb_diags_release(&d);
	free(name);
	tb_compare_free(c);
	return S_finish_stdout(rc);
}

/* ---- plan -------------------------------------------------------------- */

/* Some global batch of the search leaves the run at least one optimizer
 * step (tb_plan_batch_ok); when none does, the search could only rank runs
 * that end before their first step: refused, naming the largest batch. */
static bool S_plan_batches_ok(const tb_scenario *sc, const tb_plan_space *sp, tb_diags *d)
{
	const tb_inputs *in = &sc->inputs;
	int64_t own = in->training.global_batch;
	int n = sp->n_batches > 0 ? sp->n_batches : 1;
	for (int i = 0; i < n; i++)
		if (tb_plan_batch_ok(in, sp->n_batches > 0 ? sp->batches[i] : own))
			return true;
	double most = floor(in->training.tokens / (double)in->training.seq_len);
	tb_buf t, s, m;
	tb_buf_init(&t);
	tb_buf_init(&s);
	tb_buf_init(&m);
	tb_fmt_count(&t, in->training.tokens);
	tb_fmt_grouped(&s, (double)in->training.seq_len);
	tb_fmt_grouped(&m, most);
	tb_diags_add(d, TB_DIAG_ERROR, sp->n_batches > 0 ? "trainbudget plan" : sc->path, NULL, 0, 0, 0,
	             "%s: every global batch searched holds more than the run's %s tokens in one "
	             "step (sequences of %s), so the run would end before its first optimizer "
	             "step; expected at most %s sequences", sp->n_batches > 0 ? "--global-batch"
	             : "training.global_batch", t.ptr, s.ptr, m.ptr);
	tb_buf_release(&t);
	tb_buf_release(&s);
	tb_buf_release(&m);
	return false;
}

static tb_exit S_cmd_plan(const tb_cli *cli)
{
	char date[16];
	if (!S_date("plan", date))
		return TB_EXIT_USAGE;
	tb_diags d;
	tb_diags_init(&d);
	const char *file = cli->nfiles ? cli->files[0] : NULL;
	tb_scenario *sc = S_load(file, cli, &d);
	if (!sc) {
		S_print_diags(&d);
		tb_diags_release(&d);
		return TB_EXIT_INPUT;
	}
	if (sc->date && *sc->date)
		snprintf(date, sizeof date, "%s", sc->date);
	/* cards without a price of their own take the scenario's */
	tb_plan_space sp = cli->plan;
	for (int i = 0; i < sp.n_gpus; i++)
		if (!sp.gpus[i].price_given) {
			bool own = strcmp(sp.gpus[i].gpu.name, sc->inputs.hardware.gpu.name) == 0;
			sp.gpus[i].price_per_gpu_hour = sc->inputs.hardware.price_per_gpu_hour;
			sp.gpus[i].price_given = own;
		}
	if (!S_plan_batches_ok(sc, &sp, &d)) {
		S_print_diags(&d);
		tb_diags_release(&d);
		tb_scenario_free(sc);
		return TB_EXIT_INPUT;
	}
	tb_budget *b = tb_xmalloc(sizeof *b);   /* cleared by the answer (tb_budget_clear) */
	/* "yours" and every other figure are the one answer's, as estimate
	 * prints them */
	S_answer_and_plan(sc, b, &sp);
	tb_exit rc = TB_EXIT_OK;
	if (!b->plan.known && b->plan.space > TB_PLAN_CANDIDATES_MAX) {
		/* the question plan exists for cannot be answered: refused, as a
		 * bad input is, before anything is written */
		tb_diags_add(&d, TB_DIAG_ERROR, "trainbudget plan", NULL, 0, 0, 0,
		             "the layout space holds %.3g candidates, more than the bound of %.0f "
		             "billion; expected fewer GPU counts (--count), cards (--gpu) or global "
		             "batches (--global-batch), a smaller --max-virtual, or counts, batches "
		             "and experts with fewer divisors", b->plan.space, TB_PLAN_CANDIDATES_MAX / 1e9);
		S_print_diags(&d);
		tb_diags_release(&d);
		free(b);
		tb_scenario_free(sc);
		return TB_EXIT_INPUT;
	}
	if (cli->plan_out != TB_PLAN_OUT_FILES) {
		S_print_diags(&d);
		char *out = cli->plan_out == TB_PLAN_OUT_JSON ? tb_render_json(sc, b)
		                                              : tb_render_plan_text(sc, b);
		fputs(out, stdout);
		free(out);
	} else {
		tb_buf name;
		tb_buf_init(&name);
		tb_buf_printf(&name, "%s-plan", S_output_name(sc, file));
		tb_outputs outs;
		memset(&outs, 0, sizeof outs);
		size_t errors_before = d.errors;
		if (cli->formats & (TB_OUT_MD | TB_OUT_HTML | TB_OUT_PDF)) {
			char *tpl;
			size_t tpl_len;
			if (S_template(cli, sc, &tpl, &tpl_len, &d)) {
				char *command = S_command_line(cli);
				tb_report_options ro;
				memset(&ro, 0, sizeof ro);
				ro.template_path = cli->template_path;
				ro.template_text = tpl;
				ro.template_len = tpl_len;
				ro.date = *date ? date : NULL;
				ro.command = command;
				tb_report *r = tb_report_new_plan(sc, b, &ro, &d);
				rc = r ? tb_documents_render(cli, r, name.ptr, &outs, &d, NULL, NULL) : TB_EXIT_INPUT;
				tb_report_free(r);
				free(command);
				free(tpl);
			} else {
				rc = TB_EXIT_INPUT;
			}
		}
		if (rc == TB_EXIT_OK && (cli->formats & TB_OUT_JSON)) {
			char *json = tb_render_json(sc, b);
			tb_outputs_add(&outs, name.ptr, ".json", json, strlen(json));
		}
		if (rc == TB_EXIT_OK && d.errors > errors_before)
			rc = TB_EXIT_INPUT;
		rc = S_deliver(cli, name.ptr, rc, &outs, &d, NULL);
		tb_outputs_release(&outs);
		tb_buf_release(&name);
	}
	tb_diags_release(&d);
	free(b);
	tb_scenario_free(sc);
	return S_finish_stdout(rc);
}

/* ---- gpus, models ----------------------------------------------------- */

static tb_exit S_print_table(char *text)
{
	fputs(text, stdout);
	free(text);
	return S_finish_stdout(TB_EXIT_OK);
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
#ifdef M_TOP_PAD
	/* Each malloc heap grows 1 MB at a time rather than glibc's 128 KB:
	 * a growth is a brk or mprotect that the other threads' page faults
	 * wait behind.  DeepSeek-V3's report made 94, now 25; 0.1-0.3 ms a
	 * run (docs/performance.md).  Pages are still touched, and so
	 * counted, only as they are used. */
	mallopt(M_TOP_PAD, 1 << 20);
#endif
	S_std_fds();
	tb_cli cli;
	tb_buf err;
	tb_buf_init(&err);
	tb_exit rc = tb_cli_parse(argc, argv, &cli, &err);
	if (rc != TB_EXIT_OK) {
		S_put_escaped(stderr, err.ptr, "\n");
		fputc('\n', stderr);
		tb_buf_release(&err);
		tb_cli_release(&cli);
		return rc;
	}
	tb_buf_release(&err);
	tb_plan_set_jobs(cli.jobs);

	if (cli.help) {
		fputs(tb_cli_help(cli.help_cmd), stdout);
		rc = S_finish_stdout(TB_EXIT_OK);
	} else {
		switch (cli.cmd) {
		case TB_CMD_VERSION:
			printf("trainbudget %s\n", TB_VERSION);
			rc = S_finish_stdout(TB_EXIT_OK);
			break;
		case TB_CMD_CHECK: rc = S_cmd_check(&cli); break;
		case TB_CMD_ESTIMATE: rc = S_cmd_estimate(&cli); break;
		case TB_CMD_REPORT: rc = S_cmd_report(&cli); break;
		case TB_CMD_COMPARE: rc = S_cmd_compare(&cli); break;
		case TB_CMD_PLAN: rc = S_cmd_plan(&cli); break;
		case TB_CMD_GPUS: rc = S_print_table(tb_render_gpus_text()); break;
		case TB_CMD_MODELS: rc = S_print_table(tb_render_models_text()); break;
		case TB_CMD_HELP:
		case TB_CMD_NONE:
			fputs(tb_cli_help(TB_CMD_NONE), stdout);
			rc = S_finish_stdout(TB_EXIT_OK);
			break;
		}
	}
	tb_cli_release(&cli);
	return (int)rc;
}
