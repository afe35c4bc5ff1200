#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trainbudget/calibrate.h"
#include "trainbudget/diag.h"
#include "trainbudget/gpus.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"
#include "utf8.h"

/* ---- the subcommand table -------------------------------------------- */

typedef struct S_cmd_def {
	const char *name;
	tb_cmd cmd;
	size_t min_files, max_files;
	const char *help;
} S_cmd_def;

#define S_EXIT_CODES \
	"Exit status:\n" \
	"  0  success\n" \
	"  1  invalid input: a scenario or template has errors (all are printed)\n" \
	"  2  usage error: unknown command or option, bad option value\n" \
	"  3  output error: a file could not be written (nothing is changed)\n"

#define S_JOBS_HELP \
	"  -j, --jobs N        threads for the layout search, a sweep's points and\n" \
	"                      a comparison's proposals (default: the CPUs this\n" \
	"                      process may use); the result is the same for any N\n"
#define S_SET_HELP \
	"  --set KEY=VALUE     override a scenario value, repeatable:\n" \
	"                      --set hardware.count=128 --set training.tokens=2T;\n" \
	"                      model.preset, model.hf_config or model.params\n" \
	"                      switches the model: the model keys given before\n" \
	"                      it are dropped\n" \
	"  --unset KEY         remove a scenario value (its default applies), in\n" \
	"                      order with --set: --unset training.global_batch\n"

#define S_SWEEP_HELP \
	"  --sweep KEY=VALUES  price the scenario at each value of one setting:\n" \
	"                      KEY=V1,V2,... or KEY=FROM..TO, with :STEP or :xF\n" \
	"                      (--sweep hardware.count=64..4096:x2); a second\n" \
	"                      --sweep makes a grid; the cliffs are named\n"

static const char S_help_main[] =
	"Usage: trainbudget <command> [options]\n"
	"\n"
	"Prices an LLM training run: parameters, FLOPs, per-GPU memory, time,\n"
	"cost, energy and Chinchilla plans, from a YAML scenario file.\n"
	"\n"
	"Commands:\n"
	"  check FILE...       validate scenario files and print every problem\n"
	"  estimate [FILE]     print the budget (text or JSON)\n"
	"  report [FILE]       write the report: Markdown, HTML, PDF, JSON\n"
	"  compare FILE FILE.. compare 2 to 8 proposals side by side\n"
	"  plan [FILE]         search the parallel layouts, best first\n"
	"  gpus                list the built-in GPU table\n"
	"  models              list the built-in model presets\n"
	"  help [COMMAND]      show this help, or a command's\n"
	"\n"
	"Options:\n"
	"  -h, --help          show help (also after a command)\n"
	"  --version           print the version\n"
	"\n"
	"FILE may be '-' for standard input.  Without FILE, estimate and report\n"
	"use the built-in question: a 7B model on 100B tokens with 64 H100s\n"
	"within 30 days.  The scenario format is described in docs/scenario.md.\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_check[] =
	"Usage: trainbudget check [--set KEY=VALUE | --unset KEY]... FILE...\n"
	"\n"
	"Validates each scenario file and prints every problem it finds, as\n"
	"FILE:LINE:COL: error: what is wrong; what was expected.\n"
	"\n"
	"Options:\n"
	S_SET_HELP
	"  -h, --help          show this help\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_estimate[] =
	"Usage: trainbudget estimate [FILE] [--format text|json] [--name NAME]\n"
	"                            [--set KEY=VALUE | --unset KEY]...\n"
	"                            [--sweep KEY=VALUES]...\n"
	"\n"
	"Prints the budget for a scenario: the verdict first (fits in memory?\n"
	"meets the deadline? cost), then parameters, compute, memory and time.\n"
	"Without FILE, the built-in default scenario is used.\n"
	"\n"
	"Options:\n"
	"  --format text|json  plain text for people (default) or JSON (SI units,\n"
	"                      the keys are listed in docs/json.md)\n"
	"  --name NAME         the scenario name JSON gives (default: the stem)\n"
	S_JOBS_HELP
	S_SET_HELP
	S_SWEEP_HELP
	"  -h, --help          show this help\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_report[] =
	"Usage: trainbudget report [FILE] [-o DIR] [--format md,html,pdf,json]\n"
	"                          [--template FILE] [--paper a4|letter]\n"
	"                          [--font-dir DIR] [--name NAME]\n"
	"                          [--set KEY=VALUE | --unset KEY]...\n"
	"                          [--sweep KEY=VALUES]...\n"
	"\n"
	"Writes the report for a scenario to DIR/NAME.md (with its charts as\n"
	"DIR/NAME-*.svg), DIR/NAME.html, DIR/NAME.pdf and DIR/NAME.json, where\n"
	"NAME is --name, else the scenario file's stem ('stdin' for '-'), and\n"
	"DIR/NAME.sha256 listing them, and prints the paths written.  The\n"
	"regenerate line in the report shows an absolute path by its file name\n"
	"alone.  The set replaces the previous run's as a whole (its files\n"
	"that this run does not write are removed); runs into one DIR take\n"
	"turns; on any error, or SIGINT/SIGTERM before the last step, the\n"
	"previous files stay as they were.  The date is the scenario's `date`,\n"
	"else SOURCE_DATE_EPOCH (UTC), else none.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR    directory for the files (default .; created if\n"
	"                      missing, one level: its parent must exist)\n"
	"  --format LIST       comma-separated: md, html, pdf, json (default all)\n"
	"  --template FILE     a CommonMark template instead of the built-in one\n"
	"                      (see docs/templates.md)\n"
	"  --paper a4|letter   PDF paper size (default a4; any case)\n"
	"  --no-pdf-a          a plain PDF, not PDF/A-2b (the archival form, the default)\n"
	"  --name NAME         the files' NAME and the report's scenario name\n"
	"                      (default: the file's stem, 'stdin' for '-')\n"
	"  --font-dir DIR      where DejaVuSans.ttf, DejaVuSans-Bold.ttf and\n"
	"                      DejaVuSansMono.ttf are (default: TB_FONT_DIR, else\n"
	"                      the subsets built beside the binary or installed,\n"
	"                      else /usr/share/fonts/truetype/dejavu)\n"
	S_JOBS_HELP
	S_SET_HELP
	S_SWEEP_HELP
	"  -h, --help          show this help\n"
	"\n"
	"Environment:\n"
	"  SOURCE_DATE_EPOCH   report date when the scenario has none\n"
	"  TB_FONT_DIR         directory holding the DejaVu TrueType fonts\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_compare[] =
	"Usage: trainbudget compare FILE FILE [FILE]... [-o DIR]\n"
	"                           [--format md,html,pdf,json] [--template FILE]\n"
	"                           [--paper a4|letter] [--font-dir DIR]\n"
	"                           [--set KEY=VALUE | --unset KEY]...\n"
	"                           [--sweep KEY=VALUES]...\n"
	"\n"
	"Prices 2 to 8 proposals and writes one report with a column each: the\n"
	"verdicts, only the inputs that differ, the headline figures with the\n"
	"best in each row marked and the differences in percent against the\n"
	"first FILE, days and cost per proposal against the deadline and budget,\n"
	"memory per GPU by line item.  Files: DIR/NAME.md (charts beside it as\n"
	"DIR/NAME-*.svg), DIR/NAME.html, DIR/NAME.pdf, DIR/NAME.json and\n"
	"DIR/NAME.sha256, where NAME joins the files' stems with -vs- (a-vs-b),\n"
	"or 'comparison' past 80 characters; the set replaces the\n"
	"previous one as a whole, as for report.  --set, --unset and --sweep apply to\n"
	"every proposal.  Every error of every file is printed; proposals in\n"
	"different currencies, or the same scenario twice, cannot be compared.\n"
	"The date is the latest of the files' dates, else SOURCE_DATE_EPOCH.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR    directory for the files (default .)\n"
	"  --format LIST       comma-separated: md, html, pdf, json (default all)\n"
	"  --template FILE     a CommonMark template instead of the built-in\n"
	"                      templates/compare.md (see docs/templates.md)\n"
	"  --paper a4|letter   PDF paper size (default a4; any case)\n"
	"  --no-pdf-a          a plain PDF, not PDF/A-2b (the archival form, the default)\n"
	"  --font-dir DIR      where the DejaVu TrueType fonts are (as for report)\n"
	S_JOBS_HELP
	S_SET_HELP
	S_SWEEP_HELP
	"  -h, --help          show this help\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_plan[] =
	"Usage: trainbudget plan [FILE] [--objective time|cost] [--top N]\n"
	"                        [--format text|json|md,html,pdf,json]\n"
	"                        [--count LIST] [--gpu LIST] [--global-batch LIST]\n"
	"                        [--tensor-across-nodes] [--max-virtual N]\n"
	"                        [-o DIR] [--template FILE] [--paper a4|letter]\n"
	"                        [--font-dir DIR] [--name NAME]\n"
	"                        [--set KEY=VALUE | --unset KEY]...\n"
	"\n"
	"Searches every parallel layout of the scenario's model on its GPUs\n"
	"(tensor, pipeline, virtual, context, expert and data sizes, ZeRO 0-3,\n"
	"checkpointing, sequence parallelism, the micro-batch), keeps those\n"
	"Megatron-LM, DeepSpeed or PyTorch FSDP can run that fit in memory,\n"
	"times them with the step-time model and prints the best: days, cost,\n"
	"MFU, memory per GPU and headroom, where the step goes, the scenario's\n"
	"own layout with its rank, and why the winner wins.  With --count or\n"
	"--gpu it also searches the hardware and draws days against cost.  The\n"
	"rules and the ranking are in docs/plan.md.\n"
	"\n"
	"Options:\n"
	"  --objective time|cost  rank by wall clock (default) or by cost\n"
	"  --top N             layouts to show, 1 to 50 (default 10)\n"
	"  --format F          text (default) or json on standard output, or a\n"
	"                      list of md, html, pdf, json written to\n"
	"                      DIR/NAME-plan.* as report writes its files\n"
	"  --count LIST        GPU counts: A..B (A, 2A, 4A ... up to B) or a\n"
	"                      comma list such as 256,384,512 (at most 24)\n"
	"  --gpu LIST          cards from `trainbudget gpus`, each NAME or\n"
	"                      NAME=PRICE per GPU-hour (else the scenario's\n"
	"                      price): --gpu h100-sxm=2.5,a100-80gb=1.4\n"
	"  --global-batch LIST global batches in sequences, as --count (the\n"
	"                      tokens stay the scenario's); default the scenario's\n"
	"  --tensor-across-nodes  let tensor parallelism span nodes\n"
	"  --max-virtual N     most virtual pipeline stages per rank (default 8)\n"
	"  -o, --output DIR    directory for the files (default .)\n"
	"  --name NAME         the files' NAME (NAME-plan.*) and the scenario name\n"
	"                      (default: the file's stem, 'stdin' for '-')\n"
	"  --template FILE     a template instead of templates/plan.md\n"
	"  --paper a4|letter   PDF paper size (default a4)\n"
	"  --font-dir DIR      where the DejaVu TrueType fonts are (as for report)\n"
	S_JOBS_HELP
	S_SET_HELP
	"  -h, --help          show this help\n"
	"\n"
	S_EXIT_CODES;

static const char S_help_gpus[] =
	"Usage: trainbudget gpus\n"
	"\n"
	"Lists the built-in GPU table: the names `hardware.gpu` accepts, memory,\n"
	"dense (never sparse) peak TFLOP/s per data type, memory bandwidth and TDP.\n"
	"\n"
	"Options:\n"
	"  -h, --help          show this help\n";

static const char S_help_models[] =
	"Usage: trainbudget models\n"
	"\n"
	"Lists the built-in model presets (`model.preset`) with their official\n"
	"parameter counts.\n"
	"\n"
	"Options:\n"
	"  -h, --help          show this help\n";

static const S_cmd_def S_cmds[] = {
	{ "check", TB_CMD_CHECK, 1, (size_t)-1, S_help_check },
	{ "compare", TB_CMD_COMPARE, 2, 8, S_help_compare },
	{ "estimate", TB_CMD_ESTIMATE, 0, 1, S_help_estimate },
	{ "gpus", TB_CMD_GPUS, 0, 0, S_help_gpus },
	{ "help", TB_CMD_HELP, 0, 1, S_help_main },
	{ "models", TB_CMD_MODELS, 0, 0, S_help_models },
	{ "plan", TB_CMD_PLAN, 0, 1, S_help_plan },
	{ "report", TB_CMD_REPORT, 0, 1, S_help_report },
};
#define S_NCMDS (sizeof S_cmds / sizeof S_cmds[0])

static const S_cmd_def *S_cmd_find(const char *name)
{
	for (size_t i = 0; i < S_NCMDS; i++)
		if (strcmp(S_cmds[i].name, name) == 0)
			return &S_cmds[i];
	return NULL;
}

static const S_cmd_def *S_cmd_of(tb_cmd cmd)
{
	for (size_t i = 0; i < S_NCMDS; i++)
		if (S_cmds[i].cmd == cmd)
			return &S_cmds[i];
	return NULL;
}

const char *tb_cli_help(tb_cmd cmd)
{
	const S_cmd_def *c = S_cmd_of(cmd);
	return c ? c->help : S_help_main;
}

const char *tb_cli_cmd_name(tb_cmd cmd)
{
	const S_cmd_def *c = S_cmd_of(cmd);
	return c ? c->name : cmd == TB_CMD_VERSION ? "--version" : "";
}

/* ---- the option table, sorted by name -------------------------------- */

typedef enum { S_OPT_CALIBRATE, S_OPT_COUNT, S_OPT_FONT_DIR, S_OPT_FORMAT, S_OPT_GLOBAL_BATCH, S_OPT_GPU,
               S_OPT_HELP, S_OPT_JOBS, S_OPT_MAX_VIRTUAL, S_OPT_NAME, S_OPT_NO_PDF_A, S_OPT_OBJECTIVE, S_OPT_OUTPUT,
               S_OPT_PAPER, S_OPT_SET, S_OPT_SWEEP, S_OPT_TENSOR_ACROSS, S_OPT_TEMPLATE,
               S_OPT_TOP, S_OPT_UNSET, S_OPT_VERSION } S_opt_id;

#define S_IN(c) (1u << (c))

typedef struct S_opt_def {
	const char *name;       /* long form, with its dashes */
	char short_name;        /* 0: none */
	bool takes_arg;
	unsigned cmds;          /* S_IN(tb_cmd) bits where it is accepted */
	S_opt_id id;
} S_opt_def;

#define S_WRITERS (S_IN(TB_CMD_REPORT) | S_IN(TB_CMD_COMPARE) | S_IN(TB_CMD_PLAN))
#define S_SCENARIO_CMDS (S_IN(TB_CMD_CHECK) | S_IN(TB_CMD_ESTIMATE) | S_WRITERS)
#define S_PLAN S_IN(TB_CMD_PLAN)
#define S_ALL_CMDS (S_SCENARIO_CMDS | S_IN(TB_CMD_GPUS) | S_IN(TB_CMD_MODELS) | \
                    S_IN(TB_CMD_HELP) | S_IN(TB_CMD_NONE))

static const S_opt_def S_opts[] = {
	{ "--calibrate", 0, true, S_IN(TB_CMD_ESTIMATE) | S_IN(TB_CMD_REPORT) | S_PLAN,
	  S_OPT_CALIBRATE },
	{ "--count", 0, true, S_PLAN, S_OPT_COUNT },
	{ "--font-dir", 0, true, S_WRITERS, S_OPT_FONT_DIR },
	{ "--format", 0, true, S_IN(TB_CMD_ESTIMATE) | S_WRITERS, S_OPT_FORMAT },
	{ "--global-batch", 0, true, S_PLAN, S_OPT_GLOBAL_BATCH },
	{ "--gpu", 0, true, S_PLAN, S_OPT_GPU },
	{ "--help", 'h', false, S_ALL_CMDS, S_OPT_HELP },
	{ "--jobs", 'j', true, S_IN(TB_CMD_ESTIMATE) | S_WRITERS, S_OPT_JOBS },
	{ "--max-virtual", 0, true, S_PLAN, S_OPT_MAX_VIRTUAL },
	{ "--name", 0, true, S_IN(TB_CMD_ESTIMATE) | S_IN(TB_CMD_REPORT) | S_PLAN, S_OPT_NAME },
	{ "--no-pdf-a", 0, false, S_WRITERS, S_OPT_NO_PDF_A },
	{ "--objective", 0, true, S_PLAN, S_OPT_OBJECTIVE },
	{ "--output", 'o', true, S_WRITERS, S_OPT_OUTPUT },
	{ "--paper", 0, true, S_WRITERS, S_OPT_PAPER },
	{ "--set", 0, true, S_SCENARIO_CMDS, S_OPT_SET },
	{ "--sweep", 0, true, S_IN(TB_CMD_ESTIMATE) | S_IN(TB_CMD_REPORT) | S_IN(TB_CMD_COMPARE),
	  S_OPT_SWEEP },
	{ "--template", 0, true, S_WRITERS, S_OPT_TEMPLATE },
	{ "--tensor-across-nodes", 0, false, S_PLAN, S_OPT_TENSOR_ACROSS },
	{ "--top", 0, true, S_PLAN, S_OPT_TOP },
	{ "--unset", 0, true, S_SCENARIO_CMDS, S_OPT_UNSET },
	{ "--version", 0, false, S_IN(TB_CMD_NONE), S_OPT_VERSION },
};

/* Names people reach for that are far from ours in spelling: --out is
 * closer to --set than to --output by edit distance. */
static const struct {
	const char *alias;
	const char *name;       /* a long name in S_opts */
} S_aliases[] = {
	{ "--delete", "--unset" }, { "--dest", "--output" }, { "--dir", "--output" },
	{ "--directory", "--output" }, { "--fmt", "--format" }, { "--fontdir", "--font-dir" },
	{ "--fonts", "--font-dir" }, { "--out", "--output" }, { "--out-dir", "--output" },
	{ "--outdir", "--output" }, { "--output-dir", "--output" }, { "--outputdir", "--output" },
	{ "--override", "--set" }, { "--paper-size", "--paper" }, { "--papersize", "--paper" },
	{ "--remove", "--unset" }, { "--size", "--paper" }, { "--tpl", "--template" },
};
#define S_NOPTS (sizeof S_opts / sizeof S_opts[0])

/* ---- parsing ---------------------------------------------------------- */

typedef struct S_state {
	tb_cli *cli;
	tb_buf *err;
	const char *where;      /* "trainbudget report" for messages */
	size_t files_cap, sets_cap, sweeps_cap, pilots_cap;
} S_state;

static tb_exit S_usage(S_state *st, tb_cmd cmd)
{
	const char *name = tb_cli_cmd_name(cmd);
	if (cmd != TB_CMD_NONE && cmd != TB_CMD_HELP && *name)
		tb_buf_printf(st->err, "\nTry 'trainbudget %s --help'.", name);
	else
		tb_buf_puts(st->err, "\nTry 'trainbudget --help'.");
	return TB_EXIT_USAGE;
}

static void S_push(const char ***arr, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*arr = tb_xrealloc((void *)*arr, *cap * sizeof **arr);
	}
	(*arr)[(*n)++] = s;
}

static const S_opt_def *S_opt_named(const char *name, tb_cmd cmd)
{
	for (size_t i = 0; i < S_NOPTS; i++)
		if (strcmp(S_opts[i].name, name) == 0 && (S_opts[i].cmds & S_IN(cmd)))
			return &S_opts[i];
	return NULL;
}

/* The option an unknown word most likely meant, among those `cmd` takes:
 * a known alias (--out, --outdir), then the one option the word begins
 * (--temp) or shares its first four letters with (--outpt), then the
 * nearest by spelling.  NULL when none is close. */
static const S_opt_def *S_option_suggest(const char *word, tb_cmd cmd)
{
	for (size_t i = 0; i < sizeof S_aliases / sizeof S_aliases[0]; i++)
		if (strcmp(S_aliases[i].alias, word) == 0)
			return S_opt_named(S_aliases[i].name, cmd);
	const char *cands[S_NOPTS];
	size_t n = 0;
	for (size_t i = 0; i < S_NOPTS; i++)
		if (S_opts[i].cmds & S_IN(cmd))
			cands[n++] = S_opts[i].name;
	if (strncmp(word, "--", 2) == 0 && strlen(word) >= 5) {
		const char *hit = NULL;
		size_t hits = 0, wl = strlen(word);
		for (size_t i = 0; i < n; i++) {
			size_t cl = strlen(cands[i]);
			size_t k = wl < cl ? wl : cl;
			if (strncmp(word, cands[i], k) == 0 || strncmp(word, cands[i], 6) == 0) {
				hit = cands[i];
				hits++;
			}
		}
		if (hits == 1)
			return S_opt_named(hit, cmd);
	}
	const char *sug = tb_diags_suggest(word, cands, n);
	return sug ? S_opt_named(sug, cmd) : NULL;
}

static tb_exit S_unknown_option(S_state *st, const char *arg, size_t arglen)
{
	tb_cmd cmd = st->cli->cmd;
	char word[64];
	size_t wl = arglen < sizeof word - 1 ? arglen : sizeof word - 1;
	memcpy(word, arg, wl);
	word[wl] = '\0';
	tb_buf_printf(st->err, "%s: unknown option '%s'", st->where, word);
	/* An option another command takes is more helpful than a guess. */
	const S_opt_def *elsewhere = NULL;
	for (size_t i = 0; i < S_NOPTS; i++)
		if (strcmp(S_opts[i].name, word) == 0)
			elsewhere = &S_opts[i];
	const S_opt_def *sug = elsewhere ? NULL : S_option_suggest(word, cmd);
	/* --out to estimate: the alias names report's -o. */
	for (size_t i = 0; !elsewhere && !sug && i < sizeof S_aliases / sizeof S_aliases[0]; i++)
		if (strcmp(S_aliases[i].alias, word) == 0)
			for (size_t k = 0; k < S_NOPTS; k++)
				if (strcmp(S_opts[k].name, S_aliases[i].name) == 0)
					elsewhere = &S_opts[k];
	if (elsewhere && strcmp(elsewhere->name, word) != 0) {
		tb_buf_printf(st->err, "; '%s' is an option of ", elsewhere->name);
		size_t k = 0, shown = 0, total = 0;
		for (k = 0; k < S_NCMDS; k++)
			total += (elsewhere->cmds & S_IN(S_cmds[k].cmd)) != 0;
		for (k = 0; k < S_NCMDS; k++)
			if (elsewhere->cmds & S_IN(S_cmds[k].cmd))
				tb_buf_printf(st->err, "%s'%s'", shown++ == 0 ? "" : shown == total ? " and " : ", ",
				              S_cmds[k].name);
		tb_buf_puts(st->err, ", not of this command");
	} else if (elsewhere)
		tb_buf_printf(st->err, "; '%s' is not an option of this command", word);
	else if (sug && sug->short_name)
		tb_buf_printf(st->err, "; did you mean '-%c' (%s)?", sug->short_name, sug->name);
	else if (sug)
		tb_buf_printf(st->err, "; did you mean '%s'?", sug->name);
	else
		tb_buf_puts(st->err, "; expected one of the options in --help");
	return S_usage(st, cmd);
}

static tb_exit S_set_formats(S_state *st, const char *val)
{
	tb_cli *c = st->cli;
	if (c->cmd == TB_CMD_PLAN && (strcmp(val, "text") == 0 || strcmp(val, "json") == 0)) {
		c->plan_out = val[0] == 't' ? TB_PLAN_OUT_TEXT : TB_PLAN_OUT_JSON;
		return TB_EXIT_OK;
	}
	if (c->cmd == TB_CMD_PLAN)
		c->plan_out = TB_PLAN_OUT_FILES;
	if (c->cmd == TB_CMD_ESTIMATE) {
		if (strcmp(val, "text") == 0)
			c->json = false;
		else if (strcmp(val, "json") == 0)
			c->json = true;
		else {
			static const char *const fm[] = { "text", "json" };
			const char *sug = tb_diags_suggest(val, fm, 2);
			tb_buf_printf(st->err, "%s: unknown format '%s'; expected text or json", st->where, val);
			if (sug)
				tb_buf_printf(st->err, " (did you mean '%s'?)", sug);
			return S_usage(st, c->cmd);
		}
		return TB_EXIT_OK;
	}
	static const char *const names[] = { "md", "html", "pdf", "json" };
	static const unsigned bits[] = { TB_OUT_MD, TB_OUT_HTML, TB_OUT_PDF, TB_OUT_JSON };
	unsigned set = 0;
	const char *p = val;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char word[32];
		bool found = false;
		if (len < sizeof word) {
			memcpy(word, p, len);
			word[len] = '\0';
			for (size_t i = 0; i < 4; i++)
				if (strcmp(word, names[i]) == 0) {
					set |= bits[i];
					found = true;
				}
		} else {
			strcpy(word, "(too long)");
		}
		if (!found) {
			tb_buf_printf(st->err, "%s: unknown format '%.*s' in --format; "
			              "expected %sa comma-separated list of md, html, pdf, json",
			              st->where, (int)(len > 40 ? 40 : len), p,
			              c->cmd == TB_CMD_PLAN ? "text, json or " : "");
			const char *sug = len < sizeof word ? tb_diags_suggest(word, names, 4) : NULL;
			if (sug)
				tb_buf_printf(st->err, " (did you mean '%s'?)", sug);
			return S_usage(st, c->cmd);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	c->formats = set;
	return TB_EXIT_OK;
}

/* A NAME for output files: it must stay in the output directory, be
 * visible and printable. */
static bool S_name_ok(const char *n)
{
	if (!*n || *n == '.' || *n == '-' || strlen(n) >= 200)
		return false;
	for (const char *p = n; *p; p++)
		if (*p == '/' || *p == '\\')
			return false;
	/* printable by the one rule a file's stem and every path go through */
	char *shown = tb_utf8_shown(n, strlen(n));
	bool same = strcmp(shown, n) == 0;
	free(shown);
	return same;
}

/* ---- plan's values ------------------------------------------------------ */

/* A whole decimal number, nothing around it. */
static bool S_int(const char *s, int64_t *out)
{
	int64_t v = 0;
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000000000LL)
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return true;
}

/* "A..B": A, 2A, 4A ... up to B (B itself when the doubling misses it),
 * or "A,B,C"; at most TB_PLAN_COUNTS_MAX values, each 1..max, no repeats. */
static tb_exit S_plan_list(S_state *st, const char *opt, const char *val, int64_t *out,
                           int *n, int64_t max)
{
	int k = 0;
	const char *dots = strstr(val, "..");
	char word[32];
	if (dots) {
		int64_t a, b;
		size_t la = (size_t)(dots - val);
		bool ok = la > 0 && la < sizeof word;
		if (ok) {
			memcpy(word, val, la);
			word[la] = '\0';
			ok = S_int(word, &a) && S_int(dots + 2, &b) && a >= 1 && b >= a && b <= max;
		}
		if (!ok) {
			tb_buf_printf(st->err, "%s: %s '%s' is not a range; expected A..B with "
			              "1 <= A <= B <= %lld, such as 256..2048", st->where, opt, val,
			              (long long)max);
			return S_usage(st, st->cli->cmd);
		}
		for (int64_t x = a; x <= b && k < TB_PLAN_COUNTS_MAX; x *= 2)
			out[k++] = x;
		if (out[k - 1] != b && k < TB_PLAN_COUNTS_MAX)
			out[k++] = b;
		else if (out[k - 1] != b) {
			tb_buf_printf(st->err, "%s: %s '%s' gives more than %d values; expected a "
			              "narrower range", st->where, opt, val, TB_PLAN_COUNTS_MAX);
			return S_usage(st, st->cli->cmd);
		}
		*n = k;
		return TB_EXIT_OK;
	}
	const char *p = val;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int64_t x;
		bool ok = len > 0 && len < sizeof word;
		if (ok) {
			memcpy(word, p, len);
			word[len] = '\0';
			ok = S_int(word, &x) && x >= 1 && x <= max;
		}
		if (!ok || k == TB_PLAN_COUNTS_MAX) {
			tb_buf_printf(st->err, "%s: %s '%s' is not a list of counts; expected A..B or "
			              "up to %d whole numbers from 1 to %lld, such as 256,384,512",
			              st->where, opt, val, TB_PLAN_COUNTS_MAX, (long long)max);
			return S_usage(st, st->cli->cmd);
		}
		for (int i = 0; i < k; i++)
			if (out[i] == x) {
				tb_buf_printf(st->err, "%s: %s '%s' names %lld twice; expected each value "
				              "once", st->where, opt, val, (long long)x);
				return S_usage(st, st->cli->cmd);
			}
		out[k++] = x;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = k;
	return TB_EXIT_OK;
}

/* "h100-sxm=2.5,a100-80gb": cards of the GPU table, each with an
 * optional price per GPU-hour. */
static tb_exit S_plan_gpus(S_state *st, const char *val)
{
	tb_plan_space *sp = &st->cli->plan;
	int k = 0;
	const char *p = val;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char word[64];
		if (len == 0 || len >= sizeof word || k == TB_PLAN_GPUS_MAX) {
			tb_buf_printf(st->err, "%s: --gpu '%s' is not a list of cards; expected up to %d "
			              "names from `trainbudget gpus`, each NAME or NAME=PRICE",
			              st->where, val, TB_PLAN_GPUS_MAX);
			return S_usage(st, st->cli->cmd);
		}
		memcpy(word, p, len);
		word[len] = '\0';
		char *eq = strchr(word, '=');
		double price = 0;
		if (eq) {
			*eq = '\0';
			char *end;
			price = strtod(eq + 1, &end);
			if (end == eq + 1 || *end || !(price >= 0 && price <= 1e6)) {
				tb_buf_printf(st->err, "%s: --gpu price '%s' is not a number; expected a price "
				              "per GPU-hour such as %s=2.50", st->where, eq + 1, word);
				return S_usage(st, st->cli->cmd);
			}
		}
		const tb_gpu *g = tb_gpus_find(word);
		if (!g) {
			size_t ng = tb_gpus_count();
			const char *names[64];
			size_t nn = 0;
			for (size_t i = 0; i < ng && nn < 64; i++)
				names[nn++] = tb_gpus_at(i)->name;
			const char *sug = tb_diags_suggest(word, names, nn);
			tb_buf_printf(st->err, "%s: unknown GPU '%s' in --gpu", st->where, word);
			if (sug)
				tb_buf_printf(st->err, "; did you mean '%s'?", sug);
			else
				tb_buf_puts(st->err, "; expected a name from `trainbudget gpus`");
			return S_usage(st, st->cli->cmd);
		}
		for (int i = 0; i < k; i++)
			if (strcmp(sp->gpus[i].gpu.name, g->name) == 0) {
				tb_buf_printf(st->err, "%s: --gpu names '%s' twice; expected each card once",
				              st->where, g->name);
				return S_usage(st, st->cli->cmd);
			}
		sp->gpus[k].gpu = *g;
		sp->gpus[k].price_per_gpu_hour = price;
		sp->gpus[k].price_given = eq != NULL;
		k++;
		if (!comma)
			break;
		p = comma + 1;
	}
	sp->n_gpus = k;
	return TB_EXIT_OK;
}

static tb_exit S_apply(S_state *st, const S_opt_def *o, const char *val)
{
	tb_cli *c = st->cli;
	switch (o->id) {
	case S_OPT_HELP:
		c->help = true;
		c->help_cmd = c->cmd == TB_CMD_HELP ? TB_CMD_NONE : c->cmd;
		return TB_EXIT_OK;
	case S_OPT_VERSION:
		c->cmd = TB_CMD_VERSION;
		return TB_EXIT_OK;
	case S_OPT_FORMAT:
		return S_set_formats(st, val);
	case S_OPT_FONT_DIR:
		if (!*val) {
			tb_buf_printf(st->err, "%s: --font-dir needs a directory; expected --font-dir DIR",
			              st->where);
			return S_usage(st, c->cmd);
		}
		c->font_dir = val;
		return TB_EXIT_OK;
	case S_OPT_OUTPUT:
		if (!*val) {
			tb_buf_printf(st->err, "%s: -o needs a directory; expected -o DIR", st->where);
			return S_usage(st, c->cmd);
		}
		c->out_dir = val;
		return TB_EXIT_OK;
	case S_OPT_PAPER:
		/* Case-insensitive like GPU names: A4, Letter, LETTER. */
		if (strcasecmp(val, "a4") == 0)
			c->paper = TB_PAPER_A4;
		else if (strcasecmp(val, "letter") == 0)
			c->paper = TB_PAPER_LETTER;
		else {
			static const char *const papers[] = { "a4", "letter" };
			char low[32];
			size_t k = 0;
			for (; val[k] && k + 1 < sizeof low; k++)
				low[k] = (char)tolower((unsigned char)val[k]);
			low[k] = '\0';
			const char *sug = tb_diags_suggest(low, papers, 2);
			tb_buf_printf(st->err, "%s: unknown paper size '%s'; expected a4 or letter",
			              st->where, val);
			if (sug)
				tb_buf_printf(st->err, " (did you mean '%s'?)", sug);
			return S_usage(st, c->cmd);
		}
		return TB_EXIT_OK;
	case S_OPT_NAME:
		if (!S_name_ok(val)) {
			tb_buf_printf(st->err, "%s: --name '%s' is not a file name; expected a printable name "
			              "without '/', not starting with '.', such as llama-70b-run",
			              st->where, val);
			return S_usage(st, c->cmd);
		}
		c->name = val;
		return TB_EXIT_OK;
	case S_OPT_SET: {
		const char *eq = strchr(val, '=');
		if (!eq || eq == val) {
			tb_buf_printf(st->err, "%s: --set '%s' has no KEY=VALUE; "
			              "expected e.g. --set hardware.count=128 (--unset KEY removes a value)",
			              st->where, val);
			return S_usage(st, c->cmd);
		}
		S_push(&c->sets, &c->nsets, &st->sets_cap, val);
		return TB_EXIT_OK;
	}
	case S_OPT_UNSET:
		if (!*val || strchr(val, '=')) {
			tb_buf_printf(st->err, "%s: --unset '%s' is not a KEY; expected e.g. "
			              "--unset model.hf_config", st->where, val);
			return S_usage(st, c->cmd);
		}
		S_push(&c->sets, &c->nsets, &st->sets_cap, val);
		return TB_EXIT_OK;
	case S_OPT_SWEEP: {
		const char *eq = strchr(val, '=');
		if (!eq || eq == val || !eq[1]) {
			tb_buf_printf(st->err, "%s: --sweep '%s' has no KEY=VALUES; expected e.g. "
			              "--sweep hardware.count=64..4096:x2 or --sweep training.micro_batch=1,2,4",
			              st->where, val);
			return S_usage(st, c->cmd);
		}
		if (c->nsweeps == 2) {
			tb_buf_printf(st->err, "%s: a third --sweep; expected one setting, or two for a grid",
			              st->where);
			return S_usage(st, c->cmd);
		}
		S_push(&c->sweeps, &c->nsweeps, &st->sweeps_cap, val);
		return TB_EXIT_OK;
	}
	case S_OPT_CALIBRATE:
		if (!*val) {
			tb_buf_printf(st->err, "%s: --calibrate needs a pilot scenario; expected "
			              "--calibrate PILOT.yaml", st->where);
			return S_usage(st, c->cmd);
		}
		if (c->npilots == TB_CALIB_PILOTS_MAX) {
			tb_buf_printf(st->err, "%s: a fifth --calibrate; expected at most %d pilots",
			              st->where, TB_CALIB_PILOTS_MAX);
			return S_usage(st, c->cmd);
		}
		S_push(&c->pilots, &c->npilots, &st->pilots_cap, val);
		return TB_EXIT_OK;
	case S_OPT_COUNT:
		return S_plan_list(st, "--count", val, c->plan.counts, &c->plan.n_counts, 100000000);
	case S_OPT_GLOBAL_BATCH:
		return S_plan_list(st, "--global-batch", val, c->plan.batches, &c->plan.n_batches,
		                   100000000);
	case S_OPT_GPU:
		return S_plan_gpus(st, val);
	case S_OPT_OBJECTIVE:
		if (strcmp(val, "time") == 0 || strcmp(val, "cost") == 0) {
			c->plan.objective = val[0] == 't' ? TB_PLAN_BY_TIME : TB_PLAN_BY_COST;
			return TB_EXIT_OK;
		}
		tb_buf_printf(st->err, "%s: unknown objective '%s'; expected time or cost", st->where, val);
		return S_usage(st, c->cmd);
	case S_OPT_TOP: {
		int64_t n;
		if (!S_int(val, &n) || n < 1 || n > TB_PLAN_TOP_MAX) {
			tb_buf_printf(st->err, "%s: --top '%s' is not a count of layouts; expected 1 to %d",
			              st->where, val, TB_PLAN_TOP_MAX);
			return S_usage(st, c->cmd);
		}
		c->plan.top = (int)n;
		return TB_EXIT_OK;
	}
	case S_OPT_JOBS: {
		int64_t n;
		if (!S_int(val, &n) || n < 1 || n > TB_PLAN_JOBS_MAX) {
			tb_buf_printf(st->err, "%s: --jobs '%s' is not a number of threads; "
			              "expected 1 to %d", st->where, val, TB_PLAN_JOBS_MAX);
			return S_usage(st, c->cmd);
		}
		c->jobs = (int)n;
		return TB_EXIT_OK;
	}
	case S_OPT_MAX_VIRTUAL: {
		int64_t n;
		if (!S_int(val, &n) || n < 1 || n > 64) {
			tb_buf_printf(st->err, "%s: --max-virtual '%s' is not a number of stages; "
			              "expected 1 to 64", st->where, val);
			return S_usage(st, c->cmd);
		}
		c->plan.max_virtual = n;
		return TB_EXIT_OK;
	}
	case S_OPT_TENSOR_ACROSS:
		c->plan.tensor_across_nodes = true;
		return TB_EXIT_OK;
	case S_OPT_NO_PDF_A:
		c->no_pdfa = true;
		return TB_EXIT_OK;
	case S_OPT_TEMPLATE:
		if (!*val) {
			tb_buf_printf(st->err, "%s: --template needs a file; expected --template FILE",
			              st->where);
			return S_usage(st, c->cmd);
		}
		c->template_path = val;
		return TB_EXIT_OK;
	}
	return TB_EXIT_OK;
}

/* One option at argv[*i]; takes its value from the next word if needed. */
static tb_exit S_option(S_state *st, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const S_opt_def *o = NULL;
	const char *val = NULL;
	tb_cmd cmd = st->cli->cmd;

	if (arg[1] == '-') {
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (size_t k = 0; k < S_NOPTS; k++)
			if (strlen(S_opts[k].name) == len && strncmp(S_opts[k].name, arg, len) == 0
			    && (S_opts[k].cmds & S_IN(cmd)))
				o = &S_opts[k];
		if (!o)
			return S_unknown_option(st, arg, len);
		if (eq) {
			if (!o->takes_arg) {
				tb_buf_printf(st->err, "%s: option '%s' takes no value", st->where, o->name);
				return S_usage(st, cmd);
			}
			val = eq + 1;
		}
	} else {
		for (size_t k = 0; k < S_NOPTS; k++)
			if (S_opts[k].short_name && S_opts[k].short_name == arg[1]
			    && (S_opts[k].cmds & S_IN(cmd)))
				o = &S_opts[k];
		if (!o)
			return S_unknown_option(st, arg, strlen(arg));
		if (arg[2]) {
			if (!o->takes_arg)
				return S_unknown_option(st, arg, strlen(arg));
			val = arg + 2;          /* -oDIR */
		}
	}
	if (o->takes_arg && !val) {
		if (*i + 1 >= argc) {
			tb_buf_printf(st->err, "%s: option '%s' needs a value", st->where, o->name);
			return S_usage(st, cmd);
		}
		val = argv[++*i];
	}
	return S_apply(st, o, val);
}

static void S_init(tb_cli *c)
{
	memset(c, 0, sizeof *c);
	c->cmd = TB_CMD_NONE;
	c->help_cmd = TB_CMD_NONE;
	c->out_dir = ".";
	c->formats = TB_OUT_MD | TB_OUT_HTML | TB_OUT_PDF | TB_OUT_JSON;
	c->paper = TB_PAPER_A4;
}

void tb_cli_release(tb_cli *c)
{
	free((void *)c->files);
	free((void *)c->sets);
	free((void *)c->sweeps);
	free((void *)c->pilots);
	S_init(c);
}

tb_exit tb_cli_parse(int argc, char **argv, tb_cli *out, tb_buf *err)
{
	S_init(out);
	S_state st = { out, err, "trainbudget", 0, 0, 0, 0 };
	char where[64];
	bool options_done = false;
	const S_cmd_def *def = NULL;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!options_done && strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (!options_done && arg[0] == '-' && arg[1] != '\0') {
			tb_exit rc = S_option(&st, argc, argv, &i);
			if (rc != TB_EXIT_OK)
				return rc;
			/* --help and --version end parsing, as in git. */
			if (out->help || out->cmd == TB_CMD_VERSION)
				return TB_EXIT_OK;
			continue;
		}
		if (!def) {
			def = S_cmd_find(arg);
			if (!def) {
				const char *cands[S_NCMDS];
				for (size_t k = 0; k < S_NCMDS; k++)
					cands[k] = S_cmds[k].name;
				const char *sug = tb_diags_suggest(arg, cands, S_NCMDS);
				tb_buf_printf(err, "trainbudget: unknown command '%s'", arg);
				if (sug)
					tb_buf_printf(err, "; did you mean '%s'?", sug);
				else
					tb_buf_puts(err, "; expected check, estimate, report, compare, plan, "
					            "gpus, models or help");
				return S_usage(&st, TB_CMD_NONE);
			}
			out->cmd = def->cmd;
			snprintf(where, sizeof where, "trainbudget %s", def->name);
			st.where = where;
			continue;
		}
		if (out->cmd == TB_CMD_HELP) {
			const S_cmd_def *topic = S_cmd_find(arg);
			if (!topic || out->nfiles) {
				tb_buf_printf(err, "trainbudget help: no help for '%s'; "
				              "expected one of check, estimate, report, compare, plan, gpus, "
				              "models", arg);
				return S_usage(&st, TB_CMD_NONE);
			}
			out->help_cmd = topic->cmd == TB_CMD_HELP ? TB_CMD_NONE : topic->cmd;
			out->nfiles++;  /* counts topics; no array for help */
			continue;
		}
		S_push(&out->files, &out->nfiles, &st.files_cap, arg);
	}

	if (out->cmd == TB_CMD_NONE) {
		tb_buf_puts(err, "trainbudget: no command given; expected one of check, estimate, "
		            "report, compare, plan, gpus, models, help");
		return S_usage(&st, TB_CMD_NONE);
	}
	if (out->cmd == TB_CMD_HELP) {
		out->help = true;
		out->nfiles = 0;
		return TB_EXIT_OK;
	}
	if (out->cmd == TB_CMD_COMPARE && (out->nfiles < 2 || out->nfiles > 8)) {
		tb_buf_printf(err, "%s: %zu scenario file%s given; expected 2 to 8 proposals to compare",
		              st.where, out->nfiles, out->nfiles == 1 ? "" : "s");
		return S_usage(&st, out->cmd);
	}
	if (out->nfiles < def->min_files) {
		tb_buf_printf(err, "%s: no scenario file given; expected at least one FILE ('-' for standard input)",
		              st.where);
		return S_usage(&st, out->cmd);
	}
	if (out->nfiles > def->max_files) {
		if (def->max_files == 0)
			tb_buf_printf(err, "%s: unexpected argument '%s'; expected no arguments",
			              st.where, out->files[0]);
		else
			tb_buf_printf(err, "%s: unexpected argument '%s'; expected one FILE at most",
			              st.where, out->files[def->max_files]);
		return S_usage(&st, out->cmd);
	}
	size_t stdin_uses = 0;
	for (size_t k = 0; k < out->nfiles; k++)
		stdin_uses += strcmp(out->files[k], "-") == 0;
	if (stdin_uses > 1) {
		tb_buf_printf(err, "%s: '-' given %zu times; expected standard input once at most",
		              st.where, stdin_uses);
		return S_usage(&st, out->cmd);
	}
	return TB_EXIT_OK;
}
