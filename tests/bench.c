/* bench.c: how fast trainbudget is, and how much memory it takes.
 *
 *   bench BIN OUT.md "COMPILER AND FLAGS"
 *
 * (a) the calculators alone: tb_budget_compute over a grid of thousands of
 *     scenarios (model preset, GPUs, tokens, precision, optimizer, ZeRO,
 *     checkpointing), budgets per second on one core;
 * (a'') the layout search (tb_plan_search): the two searches of issue 12,
 *     candidates per second on one core;
 * (b) the program: wall time and peak RSS of `estimate`, `estimate
 *     --format json`, a report in each format alone (md with its charts,
 *     html, json, pdf) and a full report (all four) for every example, as
 *     separate processes (posix_spawn, wait4 for the child's ru_maxrss),
 *     after a warm-up, median of N runs; and the size of each PDF.
 * Writes the figures and the machine to OUT.md.  A measurement, not a
 * test: it never fails on speed, only when it cannot measure. */
#define _DEFAULT_SOURCE  /* wait4 */
#include <errno.h>
#include <glob.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"
#include "trainbudget/plan.h"
#include "trainbudget/presets.h"
#include "trainbudget/scenario.h"
#include "thread.h"
#include "bench_notes.h"

#define GRID_N 8192
#define RUNS 21
#define WARMUP 3
#define PAIRED_RUNS 61          /* issue 24's rows, each run beside a Python start */


static double S_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int S_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A hand-built base, so the calculators are measured without the loader. */
static void S_base(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	const tb_preset *p = tb_presets_find("llama-2-7b");
	if (p)
		in->model = p->model;
	else {
		in->model.has_shape = true;
		in->model.layers = 32; in->model.hidden = 4096; in->model.heads = 32;
		in->model.kv_heads = 32; in->model.head_dim = 128;
		in->model.ffn_hidden = 11008; in->model.vocab = 32000;
	}
	in->training.tokens = 1e11;
	in->training.seq_len = 4096;
	in->training.global_batch = 1024;
	in->training.micro_batch = 1;
	in->training.precision = TB_PREC_BF16_MIXED;
	in->training.optimizer = TB_OPT_ADAMW;
	in->training.flash_attention = true;
	const tb_gpu *g = tb_gpus_find("h100-sxm");
	if (!g && tb_gpus_count() > 0)
		g = tb_gpus_at(0);
	if (g)
		in->hardware.gpu = *g;
	in->hardware.count = 64;
	in->hardware.mfu[0] = 0.30; in->hardware.mfu[1] = 0.35; in->hardware.mfu[2] = 0.40;
	in->hardware.price_per_gpu_hour = 2.5;
	strcpy(in->hardware.currency, "USD");
	in->hardware.pue = 1.0;
	in->hardware.overhead_bytes = 2.0 * 1073741824.0;
	in->parallelism.tensor = 1; in->parallelism.pipeline = 1;
	in->parallelism.expert = 1; in->parallelism.data = 64;
	in->plan.has_deadline = true; in->plan.deadline_s = 30 * 86400.0;
	in->plan.has_budget = true; in->plan.budget = 1e6;
	in->plan.n_overtrain = 3;
	in->plan.overtrain[0] = 1; in->plan.overtrain[1] = 2; in->plan.overtrain[2] = 5;
}

static tb_inputs S_grid[GRID_N];
static tb_budget S_out;

/* Mixed-radix walk: each scenario differs from the last in several axes,
 * so no branch predictor learns one path. */
static size_t S_make_grid(void)
{
	static const int64_t gpus[] = { 1, 8, 64, 512, 4096, 16384 };
	static const double tokens[] = { 1e9, 1e11, 2e12, 1.5e13 };
	static const tb_precision prec[] = { TB_PREC_FP32, TB_PREC_BF16_MIXED,
		TB_PREC_FP16_MIXED, TB_PREC_BF16, TB_PREC_FP8_MIXED };
	static const tb_optimizer opt[] = { TB_OPT_ADAMW, TB_OPT_ADAMW_8BIT,
		TB_OPT_ADAFACTOR, TB_OPT_SGD, TB_OPT_SGD_MOMENTUM, TB_OPT_LION };
	static const tb_checkpointing ckpt[] = { TB_CKPT_NONE, TB_CKPT_SELECTIVE, TB_CKPT_FULL };
	size_t npresets = tb_presets_count();
	for (size_t i = 0; i < GRID_N; i++) {
		tb_inputs *in = &S_grid[i];
		size_t k = i;
		S_base(in);
		if (npresets) {
			in->model = tb_presets_at(k % npresets)->model;
			k /= npresets;
		}
		in->hardware.count = gpus[k % 6]; k /= 6;
		in->parallelism.data = in->hardware.count;
		in->training.tokens = tokens[k % 4]; k /= 4;
		in->training.precision = prec[k % 5]; k /= 5;
		in->training.optimizer = opt[k % 6]; k /= 6;
		in->parallelism.zero = (int)(k % 4); k /= 4;
		in->training.checkpointing = ckpt[k % 3];
		if (in->hardware.count >= 8 && in->model.experts > 1)
			in->parallelism.expert = 8 < in->model.experts ? 8 : in->model.experts;
		else
			in->parallelism.expert = 1;
	}
	return GRID_N;
}

/* The step-time model's grid: the calculators' scenarios, each with one
 * of 48 layouts (tensor 1-8, pipeline 1-16, interleaving, ZeRO, micro-
 * batch), as a layout search would walk them. */
static tb_perf_input S_pgrid[GRID_N];
static tb_perf_result S_pout;

static size_t S_make_perf_grid(void)
{
	static const int64_t tp[] = { 1, 2, 4, 8 };
	static const int64_t pp[] = { 1, 4, 16 };
	static const int64_t mb[] = { 1, 2, 4, 8 };
	for (size_t i = 0; i < GRID_N; i++) {
		tb_inputs in = S_grid[i];
		size_t k = i / 7;
		in.parallelism.tensor = tp[k % 4]; k /= 4;
		in.parallelism.pipeline = pp[k % 3]; k /= 3;
		in.parallelism.virtual_pipeline = in.parallelism.pipeline > 1 ? 1 + (int64_t)(k % 2) : 1;
		in.training.micro_batch = mb[(k / 2) % 4];
		in.hardware.count = 1024;
		in.parallelism.data = 1024 / (in.parallelism.tensor * in.parallelism.pipeline);
		tb_perf_input_from(&in, &S_pgrid[i]);
	}
	return GRID_N;
}

/* The layout search: Llama 3.1 405B on 16,384 H100 over every layout and
 * micro-batch; Llama 2 7B over 8 to 4,096 GPUs (powers of two) of three
 * cards.  Best of `reps` runs, one core. */
typedef struct S_plan_meas {
	const char *label;
	double best_s;
	uint64_t searched, feasible;
} S_plan_meas;

static tb_plan_result S_plan_out;

static S_plan_meas S_plan_bench(const char *label, const tb_inputs *in, const tb_plan_space *sp,
                                int reps)
{
	S_plan_meas m = { label, 0, 0, 0 };
	for (int r = 0; r < reps; r++) {
		double t0 = S_now_s();
		tb_plan_search(in, sp, &S_plan_out);
		double dt = S_now_s() - t0;
		if (r == 0 || dt < m.best_s)
			m.best_s = dt;
	}
	m.searched = S_plan_out.searched;
	m.feasible = S_plan_out.feasible;
	printf("bench: plan %s: %llu candidates (%llu feasible, timed) in %.3f s: %.3g candidates/s, "
	       "%.3g timed/s\n", label, (unsigned long long)m.searched,
	       (unsigned long long)m.feasible, m.best_s, (double)m.searched / m.best_s,
	       (double)m.feasible / m.best_s);
	return m;
}

static int S_plan_cases(S_plan_meas out[2])
{
	static tb_plan_space sp;
	tb_inputs in;
	int n = 0;
	const tb_preset *big = tb_presets_find("llama-3.1-405b");
	const tb_gpu *h100 = tb_gpus_find("h100-sxm");
	if (big && h100) {
		S_base(&in);
		in.model = big->model;
		in.training.seq_len = 8192;
		in.training.global_batch = 2048;
		in.hardware.count = 16384;
		in.hardware.mfu_predicted = true;
		in.parallelism.tensor = 8; in.parallelism.pipeline = 16;
		in.parallelism.data = 128; in.parallelism.sequence_parallel = true;
		in.parallelism.zero = 1;
		memset(&sp, 0, sizeof sp);
		sp.top = 10;
		out[n++] = S_plan_bench("405B on 16,384 H100", &in, &sp, 5);
	}
	static const char *const cards[3] = { "h100-sxm", "a100-80gb", "h200" };
	static const double prices[3] = { 2.50, 1.50, 3.50 };
	S_base(&in);
	in.hardware.mfu_predicted = true;
	memset(&sp, 0, sizeof sp);
	sp.top = 10;
	for (int i = 0; i < 3; i++) {
		const tb_gpu *g = tb_gpus_find(cards[i]);
		if (!g)
			continue;
		sp.gpus[sp.n_gpus].gpu = *g;
		sp.gpus[sp.n_gpus].price_per_gpu_hour = prices[i];
		sp.gpus[sp.n_gpus].price_given = true;
		sp.n_gpus++;
	}
	for (int64_t c = 8; c <= 4096; c *= 2)
		sp.counts[sp.n_counts++] = c;
	out[n++] = S_plan_bench("7B on 8-4,096 GPUs of 3 cards", &in, &sp, 3);
	return n;
}

/* Runs argv as a child with stdout/stderr to /dev/null.  Returns the wall
 * time; *rss_kb gets the child's peak resident set.  posix_spawn, which
 * glibc makes with CLONE_VFORK: no copy of the launcher's page tables
 * before the exec, as Python's subprocess starts its children; a fork
 * here added 0.06-0.09 ms to every run timed, the command's and Python's
 * alike. */
static double S_spawn(char *const argv[], long *rss_kb, int *status)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, 1, 2) != 0) {
		perror("posix_spawn_file_actions");
		exit(2);
	}
	extern char **environ;
	double t0 = S_now_s();
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		perror("posix_spawn");
		exit(2);
	}
	struct rusage ru;
	int st = 0;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("wait4");
		exit(2);
	}
	double t = S_now_s() - t0;
	*rss_kb = ru.ru_maxrss;
	*status = st;
	return t;
}

/* The children are started by a launcher forked before the benchmarks
 * below fill this process's memory: Linux carries a process's peak
 * resident set across exec, so a child forked from here after the layout
 * searches would report their 70 MB as its own (and copy their page
 * tables).  Requests: argv as NUL-terminated strings, then an empty one;
 * replies: the time, the peak RSS and the status. */
static int S_to_launcher = -1, S_from_launcher = -1;

typedef struct { double t; long rss_kb; int status; } S_reply;

static void S_start_launcher(void)
{
	int req[2], rep[2];
	if (pipe(req) != 0 || pipe(rep) != 0) {
		perror("pipe");
		exit(2);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		close(req[1]);
		close(rep[0]);
		FILE *in = fdopen(req[0], "r");
		char *args[64], buf[8192];
		for (;;) {
			size_t n = 0, used = 0;
			int c;
			bool done = false;
			while (!done) {
				size_t start = used;
				while ((c = getc(in)) != EOF && c != '\0' && used + 1 < sizeof buf)
					buf[used++] = (char)c;
				if (c == EOF)
					_exit(0);
				buf[used++] = '\0';
				if (used - start == 1)
					done = true;
				else if (n < 63)
					args[n++] = buf + start;
			}
			args[n] = NULL;
			S_reply r;
			r.t = S_spawn(args, &r.rss_kb, &r.status);
			if (write(rep[1], &r, sizeof r) != (ssize_t)sizeof r)
				_exit(1);
		}
	}
	close(req[0]);
	close(rep[1]);
	S_to_launcher = req[1];
	S_from_launcher = rep[0];
}

static double S_run_child(char *const argv[], long *rss_kb, int *status)
{
	for (size_t i = 0; argv[i]; i++)
		if (write(S_to_launcher, argv[i], strlen(argv[i]) + 1) < 0)
			exit(2);
	if (write(S_to_launcher, "", 1) != 1)
		exit(2);
	S_reply r;
	if (read(S_from_launcher, &r, sizeof r) != (ssize_t)sizeof r) {
		fprintf(stderr, "bench: the launcher stopped\n");
		exit(2);
	}
	*rss_kb = r.rss_kb;
	*status = r.status;
	return r.t;
}

typedef struct {
	double median_ms, min_ms;
	long rss_kb;
	int ok;
	double after_py_ms;     /* S_measure_paired: the runs right after a Python start */
} S_meas;

/* argv's runs timed; with `before`, it runs ahead of each of them (a
 * report of other figures, so that each timed run replaces what it
 * wrote), untimed. */
static S_meas S_measure_after(char *const argv[], char *const before[])
{
	S_meas m = { 0, 0, 0, 1, 0 };
	double t[RUNS];
	long rss;
	int st;
	for (int i = 0; i < WARMUP + RUNS; i++) {
		if (before)
			S_run_child(before, &rss, &st);
		double ti = S_run_child(argv, &rss, &st) * 1e3;
		if (i < WARMUP)
			continue;
		t[i - WARMUP] = ti;
		if (rss > m.rss_kb)
			m.rss_kb = rss;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			m.ok = 0;
	}
	qsort(t, RUNS, sizeof t[0], S_cmp_double);
	m.median_ms = t[RUNS / 2];
	m.min_ms = t[0];
	return m;
}

/* The median of v's n values (sorted in place). */
static double S_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof v[0], S_cmp_double);
	return n > 0 ? v[n / 2] : 0;
}

/* argv's runs, each beside a Python start, so that a machine that drifts
 * over the minutes of a bench drifts alike for both: Python then the
 * command, then the command then Python, in turn (py a a py py a ...),
 * so the command follows Python in half its runs and itself in the
 * other half, and Python likewise.  A
 * process right after another program's runs colder, so each kind of
 * run is its own group, and the figures are the mean of the two groups'
 * medians: the median of all the runs together fell between the groups,
 * wherever the noise of the minute put it (the same binary's ratio moved
 * between 0.28x and 0.31x).  *py_ms is Python's figure alike;
 * after_py_ms keeps the command's runs right after Python. */
static S_meas S_measure_paired(char *const argv[], char *const before[], char *const py[],
                               int runs, double *py_ms)
{
	S_meas m = { 0, 0, 0, 1, 0 };
	double t[2][PAIRED_RUNS], tp[2][PAIRED_RUNS];
	int nt[2] = { 0, 0 };
	long rss;
	int st;
	if (runs > PAIRED_RUNS)
		runs = PAIRED_RUNS;
	double fastest = 0;
	for (int i = 0; i < WARMUP + runs; i++) {
		double pi = 0, ti;
		long other_rss;
		int other_st;
		if (i % 2 == 0)
			pi = S_run_child(py, &other_rss, &other_st) * 1e3;
		if (before)
			S_run_child(before, &other_rss, &other_st);
		ti = S_run_child(argv, &rss, &st) * 1e3;
		if (i % 2 == 1)
			pi = S_run_child(py, &other_rss, &other_st) * 1e3;
		if (i < WARMUP)
			continue;
		/* group 0: the command right after Python, Python after Python */
		int g = i % 2;
		t[g][nt[g]] = ti;
		tp[g][nt[g]++] = pi;
		if (fastest == 0 || ti < fastest)
			fastest = ti;
		if (rss > m.rss_kb)
			m.rss_kb = rss;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			m.ok = 0;
	}
	m.after_py_ms = S_median(t[0], nt[0]);
	m.median_ms = (m.after_py_ms + S_median(t[1], nt[1])) / 2;
	m.min_ms = fastest;
	*py_ms = (S_median(tp[0], nt[0]) + S_median(tp[1], nt[1])) / 2;
	return m;
}

static S_meas S_measure(char *const argv[])
{
	return S_measure_after(argv, NULL);
}

static void S_shell_line(const char *cmd, char *out, size_t cap)
{
	out[0] = '\0';
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	if (fgets(out, (int)cap, p)) {
		size_t n = strlen(out);
		while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
			out[--n] = '\0';
	}
	pclose(p);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench BIN OUT.md [\"compiler and flags\"]\n");
		return 2;
	}
	const char *bin = argv[1], *outpath = argv[2];
	const char *flags = argc > 3 ? argv[3] : "(not given)";
	S_start_launcher();

	/* (a) the calculators */
	size_t n = S_make_grid();
	for (size_t i = 0; i < n; i++)          /* warm-up: caches, page faults */
		tb_budget_compute(&S_grid[i], &S_out);
	double best = 0, total_budgets = 0, total_s = 0;
	for (int rep = 0; rep < 7; rep++) {
		double t0 = S_now_s();
		for (int pass = 0; pass < 4; pass++)
			for (size_t i = 0; i < n; i++)
				tb_budget_compute(&S_grid[i], &S_out);
		double dt = S_now_s() - t0;
		double rate = 4.0 * (double)n / dt;
		if (rate > best)
			best = rate;
		total_budgets += 4.0 * (double)n;
		total_s += dt;
	}
	double mean_rate = total_budgets / total_s;
	printf("bench: calculators: %zu scenarios, best %.3g budgets/s, mean %.3g budgets/s\n",
	       n, best, mean_rate);

	/* (a') the step-time model */
	size_t pn = S_make_perf_grid();
	size_t refused = 0;
	for (size_t i = 0; i < pn; i++) {
		tb_perf_predict(&S_pgrid[i], NULL, &S_pout);
		refused += !S_pout.ok;
	}
	double pbest = 0, ptotal = 0, ptime = 0;
	for (int rep = 0; rep < 7; rep++) {
		double t0 = S_now_s();
		for (int pass = 0; pass < 16; pass++)
			for (size_t i = 0; i < pn; i++)
				tb_perf_predict(&S_pgrid[i], NULL, &S_pout);
		double dt = S_now_s() - t0;
		double rate = 16.0 * (double)pn / dt;
		if (rate > pbest)
			pbest = rate;
		ptotal += 16.0 * (double)pn;
		ptime += dt;
	}
	double pmean = ptotal / ptime;
	printf("bench: step-time model: %zu layouts (%zu refused), best %.3g predictions/s, mean %.3g\n",
	       pn, refused, pbest, pmean);

	/* (a'') the layout search: one thread, then each count of threads up
	 * to the process's cores (--jobs) */
	S_plan_meas pm[2];
	tb_plan_set_jobs(1);
	int npm = S_plan_cases(pm);
	long ncores = tb_thread_cores();
	ncores = ncores < 1 ? 1 : ncores > 64 ? 64 : ncores;
	static S_plan_meas pscale[65][2];
	for (long j = 2; j <= ncores; j++) {
		tb_plan_set_jobs((int)j);
		S_plan_cases(pscale[j]);
	}
	tb_plan_set_jobs(0);

	/* (b) the program, per example */
	glob_t g;
	memset(&g, 0, sizeof g);
	if (glob("docs/examples/*.yaml", 0, NULL, &g) != 0 || g.gl_pathc == 0)
		fprintf(stderr, "bench: no docs/examples/*.yaml: only the calculators are measured\n");

	/* (a') the risk step alone, per example: what it adds to a report */
	enum { RISK_REPS = 101 };
	static double risk_ms[64][2];
	static const char *risk_name[64];
	size_t nrisk = 0;
	for (size_t i = 0; i < g.gl_pathc && nrisk < 64; i++) {
		tb_diags d;
		tb_diags_init(&d);
		tb_scenario *sc = tb_scenario_load_file(g.gl_pathv[i], NULL, 0, &d);
		tb_diags_release(&d);
		if (!sc)
			continue;
		tb_budget_compute(&sc->inputs, &S_out);
		double t[RISK_REPS];
		for (int k = 0; k < RISK_REPS; k++) {
			double t0 = S_now_s();
			tb_budget_compute_risk(&sc->inputs, &S_out);
			t[k] = (S_now_s() - t0) * 1e3;
		}
		qsort(t, RISK_REPS, sizeof t[0], S_cmp_double);
		risk_ms[nrisk][0] = t[RISK_REPS / 2];
		risk_ms[nrisk][1] = t[0];
		risk_name[nrisk] = strrchr(g.gl_pathv[i], '/') ? strrchr(g.gl_pathv[i], '/') + 1 : g.gl_pathv[i];
		nrisk++;
		printf("bench: risk step %s: median %.3f ms\n", g.gl_pathv[i], t[RISK_REPS / 2]);
		tb_scenario_free(sc);
	}
	char tmpl[] = "/tmp/tb-bench-XXXXXX";
	char *tmp = mkdtemp(tmpl);
	if (!tmp) {
		perror("mkdtemp");
		return 2;
	}

	FILE *o = fopen(outpath, "w");
	if (!o) {
		perror(outpath);
		return 2;
	}
	char cpu[256], compiler[256], kernel[256], load[256];
	S_shell_line("lscpu | sed -n 's/^Model name: *//p'", cpu, sizeof cpu);
	S_shell_line("cc --version | head -n 1", compiler, sizeof compiler);
	S_shell_line("uname -sr", kernel, sizeof kernel);
	S_shell_line("cut -d' ' -f1-3 /proc/loadavg", load, sizeof load);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char date[32];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(o, "# Performance\n\n"
	        "Written by `make bench` (tests/bench.c); rerun it to refresh. A measurement, "
	        "not a test: it never fails on speed.\n\n"
	        "## Machine\n\n"
	        "| | |\n|---|---|\n"
	        "| CPU | %s |\n| Cores | %ld, the process's CPUs (shared with other jobs while measured) |\n"
	        "| Load average (1, 5, 15 min) at the start | %s |\n"
	        "| Kernel | %s |\n| Compiler | %s |\n| Flags | `%s` |\n| Date | %s |\n\n",
	        cpu[0] ? cpu : "unknown", ncpu, load[0] ? load : "unknown", kernel, compiler, flags, date);
	fprintf(o, "## The calculators alone\n\n"
	        "`tb_budget_compute` over a grid of %zu scenarios (every model preset x 1 to 16,384 GPUs "
	        "x 1e9 to 1.5e13 tokens x 5 precisions x 6 optimizers x ZeRO 0-3 x 3 checkpointing modes, "
	        "walked in mixed radix), one core, after a warm-up pass; 7 repetitions of 4 passes.\n\n"
	        "| Figure | Value | Aim |\n|---|---:|---:|\n"
	        "| Budgets per second (best repetition) | %.3g | > 1e6 |\n"
	        "| Budgets per second (mean) | %.3g | |\n"
	        "| Time per budget (mean) | %.3g µs | < 1 µs |\n"
	        "| Size of one tb_budget | %zu bytes | |\n\n",
	        n, best, mean_rate, 1e6 / mean_rate, sizeof(tb_budget));
	fprintf(o, "The aim is issue 6's, met when a budget was the calculators alone (1.07 million "
	        "a second, 0.97 µs each). Since issue 11 every budget also predicts its step from the "
	        "layout, and since issues 19 and 20 its variants as well (twice and half the GPUs, fp8, "
	        "the lighter last rank): about 44,700 instructions a budget on this grid (callgrind, "
	        "2026-12-05), of which the step-time model, run about six times, is 30%% and formatting "
	        "the warnings 11%%. A budget is well under "
	        "1%% of an `estimate`'s time, so the aim is left as measured, not met.\n\n");

	fprintf(o, "## The step-time model alone\n\n"
	        "`tb_perf_predict` (src/perf.c) over the same %zu scenarios, each given one of 48 "
	        "layouts on 1,024 GPUs (tensor 1-8, pipeline 1-16, interleaving 1-2, micro-batch 1-8; "
	        "%zu of them refused, e.g. more stages than layers or a count-only model: a refusal "
	        "costs less than a prediction), one core, after a warm-up pass; 7 repetitions of 16 "
	        "passes. The layout search of the next issue calls it once per candidate.\n\n"
	        "| Figure | Value | Aim |\n|---|---:|---:|\n"
	        "| Predictions per second (best repetition) | %.3g | > 5e5 |\n"
	        "| Predictions per second (mean) | %.3g | |\n"
	        "| Time per prediction (mean) | %.3g µs | < 2 µs |\n"
	        "| Size of one tb_perf_input / tb_perf_result | %zu / %zu bytes | |\n\n",
	        pn, refused, pbest, pmean, 1e6 / pmean, sizeof(tb_perf_input), sizeof(tb_perf_result));

	fprintf(o, "## The layout search\n\n"
	        "`tb_plan_search` (src/plan.c, docs/plan.md), one core, best of several runs: Llama "
	        "3.1 405B (preset, sequences of 8,192, global batch 2,048) on 16,384 H100 over every "
	        "layout and micro-batch; Llama 2 7B (sequences of 4,096, global batch 1,024) on 8 to "
	        "4,096 GPUs (powers of two) of three cards (H100 SXM, A100 80GB, H200). A candidate is "
	        "one tuple of the space (docs/plan.md: tensor, pipeline, context, expert, micro-batch, "
	        "ZeRO, checkpointing, sequence parallelism, virtual stages 1-8); the rules prune whole "
	        "branches at once, and the ones left are checked one by one for the batch rule and "
	        "memory; every feasible candidate is timed by the step-time model.\n\n"
	        "| Search | Candidates | Feasible (timed) | Time | Candidates/s | Timed/s |\n"
	        "|---|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < npm; k++)
		fprintf(o, "| %s | %llu | %llu | %.3f s | %.3g | %.3g |\n", pm[k].label,
		        (unsigned long long)pm[k].searched, (unsigned long long)pm[k].feasible,
		        pm[k].best_s, (double)pm[k].searched / pm[k].best_s,
		        (double)pm[k].feasible / pm[k].best_s);
	fprintf(o, "\nAim: above 1e6 candidates per second per core, each search in about a "
	        "second.\n\n");
	fprintf(o, "The same searches on 1 to %ld threads (`--jobs`; the jobs draw the tensor "
	        "sizes of every card, count and batch from a shared counter, and their lists merge by the "
	        "ranking's total order, so the result is the same bits for any N: tests/test_plan.c):"
	        "\n\n| Search | 1 thread |", ncores);
	for (long j = 2; j <= ncores; j++)
		fprintf(o, " %ld threads |", j);
	fprintf(o, " Speed-up |\n|---|---:|");
	for (long j = 2; j <= ncores; j++)
		fprintf(o, "---:|");
	fprintf(o, "---:|\n");
	for (int k = 0; k < npm; k++) {
		fprintf(o, "| %s | %.4f s |", pm[k].label, pm[k].best_s);
		for (long j = 2; j <= ncores; j++)
			fprintf(o, " %.4f s |", pscale[j][k].best_s);
		double last = ncores > 1 ? pscale[ncores][k].best_s : pm[k].best_s;
		fprintf(o, " %.2fx |\n", last > 0 ? pm[k].best_s / last : 0);
	}
	fprintf(o, "\n");

	fprintf(o, "## The risk step\n\n"
	        "`tb_budget_compute_risk` (%d simulated runs; kept out of `tb_budget_compute` so that "
	        "sweeps stay at the rate above), per example, one core, %d calls each. It is part of "
	        "every `estimate` and `report` below. Aim: a few milliseconds at most.\n\n"
	        "| Example | Median | Fastest |\n|---|---:|---:|\n", TB_RISK_SAMPLES, RISK_REPS);
	for (size_t k = 0; k < nrisk; k++)
		fprintf(o, "| %s | %.3f ms | %.3f ms |\n", risk_name[k], risk_ms[k][0], risk_ms[k][1]);
	fprintf(o, "\n");

	fprintf(o, "## The program, per example\n\n"
	        "Each command run as its own process (posix_spawn; output to /dev/null or a temporary "
	        "directory), %d warm-up runs, then the median of %d (the fastest of the full report "
	        "in brackets); peak RSS is the largest `ru_maxrss` of the child (wait4) over all its "
	        "commands. `report --format X` is one format alone (md includes its SVG charts; "
	        "every report also writes `NAME.sha256`); \"all four\" is the default full report. "
	        "Aims: a full report under 20 ms and 20 MB, a PDF under 300 KB.\n\n"
	        "| Example | `estimate` | `estimate --format json` | md | html | json | pdf | "
	        "all four | PDF size | Peak RSS |\n"
	        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", WARMUP, RUNS);
	enum { NCMD = 7 };
	static const char *const fmt[NCMD] = { NULL, NULL, "md", "html", "json", "pdf", "md,html,json,pdf" };
	double worst_ms = 0, sum_ms[NCMD] = { 0 };
	long worst_kb = 0, worst_pdf = 0;
	int failed = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *f = g.gl_pathv[i];
		const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		S_meas m[NCMD];
		long rss = 0;
		for (int k = 0; k < NCMD; k++) {
			char *cmd[9] = { (char *)bin, (char *)(fmt[k] ? "report" : "estimate"), f };
			int a = 3;
			if (k == 1) {
				cmd[a++] = (char *)"--format";
				cmd[a++] = (char *)"json";
			}
			if (fmt[k]) {
				cmd[a++] = (char *)"-o";
				cmd[a++] = tmp;
				cmd[a++] = (char *)"--format";
				cmd[a++] = (char *)fmt[k];
			}
			cmd[a] = NULL;
			m[k] = S_measure(cmd);
			if (m[k].rss_kb > rss)
				rss = m[k].rss_kb;
			failed += !m[k].ok;
			sum_ms[k] += m[k].median_ms;
			printf("bench: %s %s%s: median %.2f ms, peak RSS %.1f MB%s\n", base,
			       fmt[k] ? "report --format " : "estimate", fmt[k] ? fmt[k] : k ? " --format json" : "",
			       m[k].median_ms, (double)m[k].rss_kb * 1024.0 / 1e6, m[k].ok ? "" : " (FAILED)");
		}
		/* the PDF the last run wrote, NAME.pdf */
		char pdf[512];
		snprintf(pdf, sizeof pdf, "%s/%.*s.pdf", tmp, (int)(strlen(base) - 5), base);
		struct stat sb;
		long pdf_bytes = stat(pdf, &sb) == 0 ? (long)sb.st_size : -1;
		if (pdf_bytes > worst_pdf)
			worst_pdf = pdf_bytes;
		fprintf(o, "| %s", base);
		for (int k = 0; k < NCMD; k++)
			fprintf(o, k == NCMD - 1 ? " | %.1f ms (%.1f)" : " | %.1f ms", m[k].median_ms, m[k].min_ms);
		fprintf(o, " | %.1f KB | %.1f MB |\n", pdf_bytes / 1e3, (double)rss * 1024.0 / 1e6);
		if (m[NCMD - 1].median_ms > worst_ms)
			worst_ms = m[NCMD - 1].median_ms;
		if (rss > worst_kb)
			worst_kb = rss;
	}
	if (g.gl_pathc) {
		double n_ex = (double)g.gl_pathc;
		fprintf(o, "\nSlowest full report: %.2f ms median (aim < 20 ms: %s); largest peak RSS "
		        "%.1f MB (aim < 20 MB: %s); largest PDF %.1f KB (aim < 300 KB: %s)%s.\n",
		        worst_ms, worst_ms < 20 ? "met" : "**missed**",
		        (double)worst_kb * 1024.0 / 1e6, worst_kb * 1024.0 / 1e6 < 20 ? "met" : "**missed**",
		        worst_pdf / 1e3, worst_pdf < 300000 ? "met" : "**missed**",
		        failed ? "; **a command exited non-zero**" : "");
		/* what each format adds to loading the scenario and computing the
		 * budget, which `estimate --format json` measures */
		double base_ms = sum_ms[1] / n_ex;
		fprintf(o, "\nMean over the examples: `estimate --format json` %.1f ms (start, load, budget, "
		        "risk, JSON); each format alone adds md %.1f ms, html %.1f ms, json %.1f ms, "
		        "pdf %.1f ms to it; all four %.1f ms.\n",
		        base_ms, sum_ms[2] / n_ex - base_ms, sum_ms[3] / n_ex - base_ms,
		        sum_ms[4] / n_ex - base_ms, sum_ms[5] / n_ex - base_ms, sum_ms[6] / n_ex);
	}
	fprintf(o, "\nPeak RSS counts everything the process maps and touches: the C library, "
	        "libyaml, cmark, libdeflate and the DejaVu faces the PDF reads.\n");
	/* (c) sweeps and comparisons: the aim is a 100-point sweep's
	 * full report in well under a second */
	fprintf(o, "\n## Sweeps and comparisons\n\n"
	        "As above, one process per run. A sweep loads the scenario again for each point "
	        "and prices it as `estimate` would (the answer's layout search and its 4,096 "
	        "simulated runs), the points on every core (`--jobs`, merged in order: the same "
	        "bytes for any number of threads; the first row again on one thread shows the "
	        "scaling); its report adds a table of every point and four line charts of up to "
	        "128 points. Aim: the full report of a 100-point sweep well under a second.\n\n"
	        "| Command | Median | Fastest | Peak RSS | Exit |\n|---|---:|---:|---:|---|\n");
	char sw100[] = "training.tokens=10B..1T:10B";
	char *s1[] = { (char *)bin, (char *)"estimate", (char *)"docs/examples/sweep/70b-128-h100.yaml",
	               (char *)"--sweep", sw100, NULL };
	char *s1j[] = { (char *)bin, (char *)"estimate", (char *)"docs/examples/sweep/70b-128-h100.yaml",
	                (char *)"--sweep", sw100, (char *)"--jobs", (char *)"1", NULL };
	char *s2[] = { (char *)bin, (char *)"report", (char *)"docs/examples/sweep/70b-128-h100.yaml",
	               (char *)"--sweep", sw100, (char *)"-o", tmp,
	               (char *)"--format", (char *)"md,html,json,pdf", NULL };
	char *s3[] = { (char *)bin, (char *)"report", (char *)"docs/examples/sweep/70b-128-h100.yaml",
	               (char *)"--sweep", (char *)"training.micro_batch=1..16",
	               (char *)"--sweep", (char *)"training.seq_len=1024..32768:x2", (char *)"-o", tmp,
	               (char *)"--format", (char *)"md,html,json,pdf", NULL };
	char *s4[] = { (char *)bin, (char *)"compare", (char *)"docs/examples/compare/7b-2t.yaml",
	               (char *)"docs/examples/compare/13b-1t.yaml",
	               (char *)"docs/examples/compare/13b-1t-128.yaml", (char *)"-o", tmp,
	               (char *)"--format", (char *)"md,html,json,pdf", NULL };
	struct { const char *label; char **argv; } sweeps[] = {
		{ "estimate 70b-128-h100.yaml --sweep training.tokens=10B..1T:10B (100 points)", s1 },
		{ "the same, --jobs 1", s1j },
		{ "report 70b-128-h100.yaml --sweep training.tokens=10B..1T:10B (100 points), md,html,json,pdf", s2 },
		{ "report 70b-128-h100.yaml, a 16 x 6 grid of micro_batch and seq_len, md,html,json,pdf", s3 },
		{ "compare 7b-2t 13b-1t 13b-1t-128, md,html,json,pdf", s4 },
	};
	double sweep_ms = 0;
	for (size_t k = 0; k < sizeof sweeps / sizeof sweeps[0]; k++) {
		S_meas m = S_measure(sweeps[k].argv);
		fprintf(o, "| `%s` | %.2f ms | %.2f ms | %.1f MB | %s |\n", sweeps[k].label, m.median_ms,
		        m.min_ms, (double)m.rss_kb * 1024.0 / 1e6, m.ok ? "0" : "**non-zero**");
		printf("bench: %s: median %.2f ms, peak RSS %.1f MB%s\n", sweeps[k].label, m.median_ms,
		       (double)m.rss_kb * 1024.0 / 1e6, m.ok ? "" : " (FAILED)");
		if (k == 2)
			sweep_ms = m.median_ms;
	}
	fprintf(o, "\nThe 100-point sweep's full report: %.0f ms median (aim well under 1,000 ms: %s).\n",
	        sweep_ms, sweep_ms < 500 ? "met" : "**missed**");

	/* (c') the rows of issue 24, each against a bare Python start in the
	 * same run, so the ratios hold on any machine */
	{
		char *py[] = { (char *)"/usr/bin/python3", (char *)"-S", (char *)"-c", (char *)"pass", NULL };
		S_meas pym = S_measure(py);
		char *r1[] = { (char *)bin, (char *)"estimate", NULL };
		char *r2[] = { (char *)bin, (char *)"estimate", (char *)"docs/examples/deepseek-v3.yaml", NULL };
		char *r3[] = { (char *)bin, (char *)"report", (char *)"-o", tmp, NULL };
		char *r4[] = { (char *)bin, (char *)"report", (char *)"docs/examples/deepseek-v3.yaml",
		               (char *)"-o", tmp, NULL };
		char *r5[] = { (char *)bin, (char *)"plan", (char *)"docs/examples/deepseek-v3.yaml",
		               (char *)"--count", (char *)"512..8192", (char *)"--gpu",
		               (char *)"h100-sxm,h200,b200", NULL };
		char *r6[] = { (char *)bin, (char *)"plan", (char *)"docs/examples/deepseek-v3.yaml",
		               (char *)"--count", (char *)"256..16384", (char *)"--gpu",
		               (char *)"h100-sxm,h200,b200,mi300x", NULL };
		/* the reports again, each run replacing a set of other figures
		 * (so every file the figures reach is written anew) */
		char *o3[] = { (char *)bin, (char *)"report", (char *)"--set", (char *)"training.tokens=2T",
		               (char *)"-o", tmp, NULL };
		char *o4[] = { (char *)bin, (char *)"report", (char *)"docs/examples/deepseek-v3.yaml",
		               (char *)"--set", (char *)"training.tokens=10T", (char *)"-o", tmp, NULL };
		struct { const char *label; char **argv, **other; double aim; bool seconds; } rows[] = {
			{ "`estimate` (built-in question)", r1, NULL, 0.3, false },
			{ "`estimate docs/examples/deepseek-v3.yaml`", r2, NULL, 0.3, false },
			{ "`report` (md, html, json, pdf; built-in question)", r3, NULL, 1.0, false },
			{ "the same, replacing a report of other figures each run", r3, o3, 1.0, false },
			{ "`report docs/examples/deepseek-v3.yaml`", r4, NULL, 1.5, false },
			{ "the same, replacing a report of other figures each run", r4, o4, 1.5, false },
			{ "`plan docs/examples/deepseek-v3.yaml --count 512..8192 --gpu h100-sxm,h200,b200`", r5, NULL, 0.2, true },
			{ "`plan docs/examples/deepseek-v3.yaml --count 256..16384 --gpu h100-sxm,h200,b200,mi300x`", r6, NULL, 0.2, true },
		};
		fprintf(o, "## Against a Python start\n\n"
		        "Issue 24's rows: each command as its own process beside a bare `python3 -S -c "
		        "pass` (%.2f ms median of %d runs before the rows), on %ld cores (the search "
		        "uses them all, `--jobs` unset). Each row's runs alternate with Python's, %d "
		        "of each after %d of each to warm up: a shared machine that drifts over the "
		        "minutes of a bench drifts alike for both (measured one after the other, the same "
		        "binary's ratio moved by 0.05x between runs). The pairs alternate their order too "
		        "(Python, the command, the command, Python, ...), so that each follows itself in "
		        "half its runs and the other in half. A process right after Python runs colder "
		        "than one after itself (DeepSeek-V3's estimate 2.02-2.11 ms against 1.83-1.95 ms "
		        "in the same minutes), so the two halves are two groups, and each figure is the "
		        "mean of its two groups' medians: the median of all the runs fell between the "
		        "groups, wherever the minute's noise put it, and the same binary's ratio moved "
		        "from 0.28x to 0.31x. The ratio is of the two figures; the runs right after "
		        "Python have their own column. The aim is a ratio to the Python start, or seconds for the "
		        "two hardware searches. A report run again into its "
		        "own directory finds its files already there and writes none of them (a file "
		        "holding its bytes is left as it is, as `install -C` leaves one: src/fileio.c); "
		        "the rows \"replacing a report of other figures\" run in turn with a report of "
		        "other figures into the same directory, so each run replaces what the other "
		        "wrote. They are not rows of the issue's table and have no aim of their own; "
		        "the last column compares them with the row above. What they add is the file "
		        "system's: each replaced file's old inode is freed, nine unlinks of 0.13-0.19 ms "
		        "each under strace on this ext4 mounted with discard, after the new files are in "
		        "place (the old ones are kept linked until then, so that a failed commit puts "
		        "them back).\n\n"
		        "| Command | Median | Python beside it | Ratio to Python | Right after Python | Aim | Peak RSS | Exit |\n"
		        "|---|---:|---:|---:|---:|---:|---:|---|\n", pym.median_ms, RUNS, ncores, PAIRED_RUNS,
		        WARMUP);
		for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
			double py_ms = 0;
			/* the hardware searches are timed against seconds: as many runs as the rest */
			S_meas m = S_measure_paired(rows[k].argv, rows[k].other, py,
			                            rows[k].seconds ? RUNS : PAIRED_RUNS, &py_ms);
			double ratio = py_ms > 0 ? m.median_ms / py_ms : 0;
			bool met = rows[k].seconds ? m.median_ms / 1e3 <= rows[k].aim : ratio <= rows[k].aim;
			char aim[96];
			if (rows[k].other)      /* not a row of the table */
				snprintf(aim, sizeof aim, "none (%s %.1fx)", met ? "under the row's" : "over the row's",
				         rows[k].aim);
			else
				snprintf(aim, sizeof aim, "%s%.1f%s %s", rows[k].seconds ? "" : "<= ", rows[k].aim,
				         rows[k].seconds ? " s" : "x", met ? "(met)" : "(**missed**)");
			fprintf(o, "| %s | %.2f ms | %.2f ms | %.3fx | %.2f ms, %.3fx | %s | %.1f MB | %s |\n",
			        rows[k].label, m.median_ms, py_ms, ratio, m.after_py_ms,
			        py_ms > 0 ? m.after_py_ms / py_ms : 0, aim,
			        (double)m.rss_kb * 1024.0 / 1e6, m.ok ? "0" : "**non-zero**");
			printf("bench: %s: median %.2f ms, %.3fx python (%.2f ms beside it; right after "
			       "it %.2f ms)\n", rows[k].label, m.median_ms, ratio, py_ms, m.after_py_ms);
		}
		fprintf(o, "\n");
	}

	/* (d) the PDF's text: Latin takes the one-glyph path; a page of six
	 * scripts loads FriBidi, HarfBuzz and ICU and shapes (issue 23:
	 * under 2x the Latin report's PDF) */
	fprintf(o, "\n## The PDF's text\n\n"
	        "The default scenario's PDF alone: the full report (Latin text, drawn a glyph a "
	        "character); `tests/templates/scripts.md`, a page of Arabic, Hebrew, Persian, "
	        "Devanagari, Thai and Chinese (the text libraries opened, every line shaped and "
	        "ordered); and `tests/templates/scripts-latin.md`, the same page in English. Aim: "
	        "the page of scripts under 2x the same page in Latin.\n\n"
	        "| Command | Median | Fastest | Peak RSS | Exit |\n|---|---:|---:|---:|---|\n");
	char *t1[] = { (char *)bin, (char *)"report", (char *)"docs/examples/default-7b.yaml",
	               (char *)"-o", tmp, (char *)"--format", (char *)"pdf", NULL };
	char *t2[] = { (char *)bin, (char *)"report", (char *)"docs/examples/default-7b.yaml",
	               (char *)"--template", (char *)"tests/templates/scripts.md", (char *)"-o", tmp,
	               (char *)"--format", (char *)"pdf", NULL };
	char *t3[] = { (char *)bin, (char *)"report", (char *)"docs/examples/default-7b.yaml",
	               (char *)"--template", (char *)"tests/templates/scripts-latin.md", (char *)"-o",
	               tmp, (char *)"--format", (char *)"pdf", NULL };
	struct { const char *label; char **argv; } texts[] = {
		{ "report default-7b.yaml --format pdf (the full report)", t1 },
		{ "report default-7b.yaml --template tests/templates/scripts.md --format pdf (six scripts)", t2 },
		{ "report default-7b.yaml --template tests/templates/scripts-latin.md --format pdf (the page in English)", t3 },
	};
	double text_ms[3] = {0, 0, 0};
	for (size_t k = 0; k < 3; k++) {
		S_meas m = S_measure(texts[k].argv);
		text_ms[k] = m.median_ms;
		fprintf(o, "| `%s` | %.2f ms | %.2f ms | %.1f MB | %s |\n", texts[k].label, m.median_ms,
		        m.min_ms, (double)m.rss_kb * 1024.0 / 1e6, m.ok ? "0" : "**non-zero**");
		printf("bench: %s: median %.2f ms%s\n", texts[k].label, m.median_ms,
		       m.ok ? "" : " (FAILED)");
	}
	double ratio = text_ms[2] > 0 ? text_ms[1] / text_ms[2] : 0;
	fprintf(o, "\nThe page of scripts: %.2fx the same page in English (aim under 2x: %s).\n",
	        ratio, ratio < 2 ? "met" : "**missed**");

	fprintf(o, "\n## Where the time goes\n\n");
	/* paragraphs apart: C caps one string literal at 4,095 characters */
	for (size_t k = 0; tb_bench_where_time_goes[k]; k++)
		fputs(tb_bench_where_time_goes[k], o);
	fputc('\n', o);
	fclose(o);
	globfree(&g);
	char rm[64];
	snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
	if (system(rm) != 0)
		fprintf(stderr, "bench: could not remove %s\n", tmp);
	printf("bench: wrote %s\n", outpath);
	return 0;
}
