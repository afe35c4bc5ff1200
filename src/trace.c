/* trace.c: a PyTorch profiler trace, summed by category (trace.h).
 *
 * One pass over libyaml's parser events (JSON is YAML's flow style): an
 * event object's scalar members are kept in fixed buffers, nested values
 * (its "args") skipped, and each complete event added to its rank's sums
 * as it closes. */
#include "trainbudget/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const S_names[TB_TRACE_TERMS] = {
	"gemm", "attention", "elementwise", "optimizer", "all_reduce", "reduce_scatter",
	"all_gather", "all_to_all", "send_recv", "idle",
};

const char *tb_trace_term_name(int term)
{
	return term >= 0 && term < TB_TRACE_TERMS ? S_names[term] : "?";
}

/* One process of the trace: torch.profiler writes the CPU's operators
 * under the process id and each GPU's kernels under the device's index,
 * so a rank's file holds one of the first and one of the second. */
typedef struct S_rank {
	char pid[64];
	double step_us;
	int64_t steps;
	bool kernels;               /* a GPU's: kernels were seen on it */
} S_rank;

/* The event being read. */
typedef struct S_event {
	char name[192], cat[32], pid[64], ph[4];
	double dur;
	bool has_dur, bad_dur;
	size_t dur_line, dur_col;   /* where "dur"'s value is, for its error */
} S_event;

/* A complete event of eleven days: no profiler writes one; a hostile
 * file would sum to inf. */
#define S_MOST_DUR_US 1e12

typedef struct S_read {
	S_rank ranks[TB_TRACE_RANKS_MAX];
	int nranks;
	int64_t events;
	bool gpu;
	/* over the whole file, microseconds */
	double gpu_us[TB_TRACE_TERMS], cpu_us[TB_TRACE_TERMS];
	double kernels_us;
} S_read;

static bool S_has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

/* Case-insensitive substring: kernel names mix "AllReduce" and "all_reduce". */
static bool S_hasi(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && (s[i] | 32) == (needle[i] | 32))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

static int S_comm(const char *n)
{
	if (S_hasi(n, "allreduce") || S_hasi(n, "all_reduce"))
		return TB_TRACE_ALL_REDUCE;
	if (S_hasi(n, "reducescatter") || S_hasi(n, "reduce_scatter"))
		return TB_TRACE_REDUCE_SCATTER;
	if (S_hasi(n, "allgather") || S_hasi(n, "all_gather"))
		return TB_TRACE_ALL_GATHER;
	if (S_hasi(n, "alltoall") || S_hasi(n, "all_to_all"))
		return TB_TRACE_ALL_TO_ALL;
	if (S_hasi(n, "sendrecv") || S_hasi(n, "send") || S_hasi(n, "recv"))
		return TB_TRACE_SEND_RECV;
	return -1;
}

/* A GPU kernel's category by its name. */
static int S_kernel(const char *n)
{
	if (S_hasi(n, "nccl") || S_hasi(n, "rccl")) {
		int c = S_comm(n);
		return c >= 0 ? c : TB_TRACE_ALL_REDUCE;
	}
	if (S_hasi(n, "flash") || S_hasi(n, "fmha") || S_hasi(n, "attention") || S_hasi(n, "cudnn_sdpa"))
		return TB_TRACE_ATTENTION;
	if (S_hasi(n, "gemm") || S_hasi(n, "xmma") || S_hasi(n, "cutlass") || S_hasi(n, "cublas") ||
	    S_hasi(n, "matmul") || S_hasi(n, "wgmma") || S_hasi(n, "hgemm") || S_hasi(n, "sgemm"))
		return TB_TRACE_GEMM;
	if (S_hasi(n, "multi_tensor_apply") || S_hasi(n, "adam") || S_hasi(n, "optimizer"))
		return TB_TRACE_OPTIMIZER;
	return TB_TRACE_ELEMENTWISE;
}

/* A CPU operator's category, or -1 for the operators that only call
 * others (counted through their leaves). */
static int S_cpu_op(const char *n)
{
	if (strncmp(n, "Optimizer.step#", 15) == 0)
		return TB_TRACE_OPTIMIZER;
	if (strcmp(n, "aten::mm") == 0 || strcmp(n, "aten::addmm") == 0 ||
	    strcmp(n, "aten::bmm") == 0 || strcmp(n, "aten::baddbmm") == 0 ||
	    strcmp(n, "aten::_scaled_mm") == 0)
		return TB_TRACE_GEMM;
	if (S_has(n, "scaled_dot_product") || S_has(n, "flash_attention"))
		return TB_TRACE_ATTENTION;
	if (S_has(n, "c10d::") || S_has(n, "nccl:") || S_has(n, "gloo:")) {
		int c = S_comm(n);
		return c >= 0 ? c : TB_TRACE_ALL_REDUCE;
	}
	return -1;
}

static S_rank *S_rank_of(S_read *rd, const char *pid)
{
	for (int i = 0; i < rd->nranks; i++)
		if (strcmp(rd->ranks[i].pid, pid) == 0)
			return &rd->ranks[i];
	if (rd->nranks == TB_TRACE_RANKS_MAX)
		return &rd->ranks[TB_TRACE_RANKS_MAX - 1];
	S_rank *r = &rd->ranks[rd->nranks++];
	memset(r, 0, sizeof *r);
	snprintf(r->pid, sizeof r->pid, "%s", pid);
	return r;
}

static void S_add(S_read *rd, const S_event *e)
{
	if (strcmp(e->ph, "X") != 0 || !e->has_dur || !(e->dur >= 0) || !isfinite(e->dur))
		return;
	rd->events++;
	S_rank *r = S_rank_of(rd, e->pid);
	if (strncmp(e->name, "ProfilerStep#", 13) == 0) {
		r->steps++;
		r->step_us += e->dur;
		return;
	}
	if (strcmp(e->cat, "kernel") == 0) {
		r->kernels = rd->gpu = true;
		rd->gpu_us[S_kernel(e->name)] += e->dur;
		rd->kernels_us += e->dur;
		return;
	}
	int c = S_cpu_op(e->name);
	if (c >= 0)
		rd->cpu_us[c] += e->dur;
}

/* A member's value kept, cut to the buffer. */
static void S_keep(char *dst, size_t cap, const char *v, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, v, len);
	dst[len] = 0;
}

enum { S_OTHER, S_EVENTS, S_EVENT, S_TOP };

typedef struct S_frame {
	int role;
	bool is_map;
	bool have_key;
	char key[32];
} S_frame;

#define S_DEPTH 64

int tb_trace_parse(const char *path, const char *text, size_t len, tb_trace *out, tb_diags *d)
{
	memset(out, 0, sizeof *out);
	path = path ? path : "<trace>";
	S_read *rd = calloc(1, sizeof *rd);
	if (!rd)
		return -1;
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) {
		free(rd);
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)(text ? text : ""), text ? len : 0);
	S_frame st[S_DEPTH];
	int depth = 0;
	S_event ev;
	memset(&ev, 0, sizeof ev);
	int rc = 0;
	bool done = false;
	while (!done) {
		yaml_event_t y;
		if (!yaml_parser_parse(&p, &y)) {
			tb_diags_add(d, TB_DIAG_ERROR, path, text, len, p.problem_mark.line + 1,
			             p.problem_mark.column + 1, "invalid JSON: %s; expected a Chrome trace "
			             "as torch.profiler's export_chrome_trace writes it",
			             p.problem ? p.problem : "syntax error");
			rc = -1;
			break;
		}
		S_frame *up = depth > 0 ? &st[depth - 1] : NULL;
		switch (y.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT: {
			bool is_map = y.type == YAML_MAPPING_START_EVENT;
			if (depth == S_DEPTH) {
				tb_diags_add(d, TB_DIAG_ERROR, path, text, len, y.start_mark.line + 1,
				             y.start_mark.column + 1, "nesting deeper than %d levels; expected "
				             "a Chrome trace", S_DEPTH);
				rc = -1;
				done = true;
				break;
			}
			S_frame f = { S_OTHER, is_map, false, "" };
			if (!up)
				f.role = is_map ? S_TOP : S_EVENTS;
			else if (!is_map && up->role == S_TOP && up->have_key &&
			         strcmp(up->key, "traceEvents") == 0)
				f.role = S_EVENTS;
			else if (is_map && up->role == S_EVENTS)
				f.role = S_EVENT;
			if (f.role == S_EVENT)
				memset(&ev, 0, sizeof ev);
			if (up && up->is_map)
				up->have_key = false;   /* the value was this container */
			st[depth++] = f;
			break;
		}
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (depth > 0) {
				if (st[depth - 1].role == S_EVENT && ev.bad_dur && strcmp(ev.ph, "X") == 0) {
					tb_diags_add(d, TB_DIAG_ERROR, path, text, len, ev.dur_line, ev.dur_col,
					             "\"dur\" is not a duration; expected microseconds from 0 to %g",
					             S_MOST_DUR_US);
					rc = -1;
					done = true;
				} else if (st[depth - 1].role == S_EVENT) {
					S_add(rd, &ev);
				}
				depth--;
			}
			break;
		case YAML_SCALAR_EVENT: {
			if (!up || !up->is_map)
				break;
			const char *v = (const char *)y.data.scalar.value;
			size_t vl = y.data.scalar.length;
			if (!up->have_key) {
				S_keep(up->key, sizeof up->key, v, vl);
				up->have_key = true;
				break;
			}
			up->have_key = false;
			if (up->role != S_EVENT)
				break;
			if (strcmp(up->key, "name") == 0)
				S_keep(ev.name, sizeof ev.name, v, vl);
			else if (strcmp(up->key, "cat") == 0)
				S_keep(ev.cat, sizeof ev.cat, v, vl);
			else if (strcmp(up->key, "pid") == 0)
				S_keep(ev.pid, sizeof ev.pid, v, vl);
			else if (strcmp(up->key, "ph") == 0)
				S_keep(ev.ph, sizeof ev.ph, v, vl);
			else if (strcmp(up->key, "dur") == 0) {
				char buf[48], *end;
				S_keep(buf, sizeof buf, v, vl);
				ev.dur = strtod(buf, &end);
				ev.has_dur = end != buf && *end == 0;
				ev.bad_dur = !ev.has_dur || !(ev.dur >= 0) || !(ev.dur <= S_MOST_DUR_US);
				ev.dur_line = y.start_mark.line + 1;
				ev.dur_col = y.start_mark.column + 1;
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&y);
	}
	yaml_parser_delete(&p);

	if (rc == 0 && rd->events == 0) {
		tb_diags_add(d, TB_DIAG_ERROR, path, text, len, 1, 1, "no complete event (\"ph\": \"X\" "
		             "with a \"dur\"); expected a trace torch.profiler exported");
		rc = -1;
	}
	/* the steps: the process that marks the most; the GPUs: those with
	 * kernels, each figure their mean */
	int64_t steps = 0;
	double step_us = 0;
	int gpus = 0;
	for (int i = 0; rc == 0 && i < rd->nranks; i++) {
		const S_rank *r = &rd->ranks[i];
		if (r->steps > steps) {
			steps = r->steps;
			step_us = r->step_us;
		}
		gpus += r->kernels;
	}
	if (rc == 0 && steps == 0) {
		tb_diags_add(d, TB_DIAG_ERROR, path, text, len, 1, 1, "no ProfilerStep#N event to divide "
		             "by; expected a trace of whole steps (torch.profiler with prof.step() each step)");
		rc = -1;
	}
	if (rc == 0) {
		double n = (double)steps, per = gpus > 0 ? (double)gpus : 1;
		out->gpu = rd->gpu;
		out->ranks = gpus > 0 ? gpus : 1;
		out->steps = steps;
		out->events = rd->events;
		out->step_s = step_us / n * 1e-6;
		const double *src = rd->gpu ? rd->gpu_us : rd->cpu_us;
		for (int t = 0; t < TB_TRACE_TERMS; t++)
			out->terms_s[t] = src[t] / per / n * 1e-6;
		if (!rd->gpu) {
			/* the CPU's time outside the GEMMs, the attention, the
			 * optimizer and the collectives: its elementwise work */
			double named = 0;
			for (int t = 0; t < TB_TRACE_TERMS; t++)
				named += out->terms_s[t];
			out->terms_s[TB_TRACE_ELEMENTWISE] = fmax(0, out->step_s - named);
		} else {
			/* kernels of one stream: what the step did not fill */
			out->terms_s[TB_TRACE_IDLE] = fmax(0, out->step_s - rd->kernels_us / per / n * 1e-6);
		}
		out->compute_s = out->terms_s[TB_TRACE_GEMM] + out->terms_s[TB_TRACE_ATTENTION] +
		                 out->terms_s[TB_TRACE_ELEMENTWISE];
		for (int t = TB_TRACE_ALL_REDUCE; t <= TB_TRACE_SEND_RECV; t++)
			out->comm_s += out->terms_s[t];
	}
	free(rd);
	if (rc != 0)
		memset(out, 0, sizeof *out);
	return rc;
}
