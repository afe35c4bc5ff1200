/* cli.h: argv to a tb_cli, the subcommand table, help texts, exit codes.
 *
 * Parsing only: nothing here reads a scenario, prints or exits.  main.c
 * runs what the parse asks for (jq's main.c keeps its exit codes in an
 * enum; curl's tool_getparam.c keeps its options in one sorted table). */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/buf.h"
#include "trainbudget/plan.h"
#include "trainbudget/render.h"

/* Documented in README.md and every --help: scripts depend on them. */
typedef enum {
	TB_EXIT_OK = 0,
	TB_EXIT_INPUT = 1,      /* a scenario or template is invalid */
	TB_EXIT_USAGE = 2,      /* the command line is wrong */
	TB_EXIT_OUTPUT = 3      /* an output could not be produced or written */
} tb_exit;

typedef enum {
	TB_CMD_NONE,            /* no subcommand: usage error */
	TB_CMD_HELP,
	TB_CMD_VERSION,
	TB_CMD_CHECK,
	TB_CMD_ESTIMATE,
	TB_CMD_REPORT,
	TB_CMD_GPUS,
	TB_CMD_MODELS,
	TB_CMD_COMPARE,
	TB_CMD_PLAN
} tb_cmd;

/* Where `plan` writes: text or JSON on standard output, or files. */
typedef enum { TB_PLAN_OUT_TEXT, TB_PLAN_OUT_JSON, TB_PLAN_OUT_FILES } tb_plan_out;

/* Report formats, a bit set in tb_cli.formats. */
enum {
	TB_OUT_MD = 1u << 0,
	TB_OUT_HTML = 1u << 1,
	TB_OUT_PDF = 1u << 2,
	TB_OUT_JSON = 1u << 3
};

typedef struct tb_cli {
	tb_cmd cmd;
	bool help;              /* print the usage of `help_cmd` and stop */
	tb_cmd help_cmd;        /* TB_CMD_NONE: the general usage */
	const char **files;     /* owned array of borrowed argv strings */
	size_t nfiles;
	const char **sets;      /* owned array, in command-line order: "KEY=VALUE"
	                         * (--set) borrowed from argv, or "KEY" (--unset) */
	size_t nsets;
	const char *name;       /* --name: the output files' NAME; NULL: the stem */
	const char **sweeps;    /* owned array, --sweep KEY=VALUES borrowed from argv */
	size_t nsweeps;
	const char **pilots;    /* owned array, --calibrate PILOT.yaml borrowed from argv */
	size_t npilots;
	const char *out_dir;    /* report, compare -o; "." by default */
	unsigned formats;       /* report, compare: TB_OUT_* bits */
	bool json;              /* estimate --format json */
	const char *template_path; /* NULL: the built-in template */
	tb_paper paper;
	bool no_pdfa;           /* --no-pdf-a: a plain PDF */
	const char *font_dir;   /* --font-dir; NULL: TB_FONT_DIR, else the default */
	int jobs;               /* --jobs; 0: the process's CPUs (tb_plan_set_jobs) */
	/* plan: the search's options (--objective, --top, --count, --gpu with
	 * prices, --global-batch, --tensor-across-nodes, --max-virtual; cards
	 * are looked up in the GPU table here, prices not given are filled by
	 * main.c from the scenario) and where the result goes */
	tb_plan_space plan;
	tb_plan_out plan_out;
} tb_cli;

/* Parses argv into *out (always initialised; release with tb_cli_release).
 * Returns TB_EXIT_OK, or TB_EXIT_USAGE with a message in err: what is
 * wrong, a did-you-mean when one is close, and where to get help. */
tb_exit tb_cli_parse(int argc, char **argv, tb_cli *out, tb_buf *err);
void tb_cli_release(tb_cli *c);

/* The --help text for `cmd` (TB_CMD_NONE: the overview).  Static. */
const char *tb_cli_help(tb_cmd cmd);

/* "report" for TB_CMD_REPORT; "" for TB_CMD_NONE. */
const char *tb_cli_cmd_name(tb_cmd cmd);

#endif
