/* render_tables.c: the tables `trainbudget gpus` and `trainbudget models`
 * print, as text: the GPU table's cards with their peaks, and the model
 * presets with their official parameter counts. */
#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"
#include "trainbudget/render.h"
#include "trainbudget/xalloc.h"

static void S_tflops(tb_buf *b, double flops_per_s)
{
	double t = flops_per_s / 1e12;
	if (!(t > 0))
		tb_buf_puts(b, "-");
	else if (t >= 100)
		tb_buf_printf(b, "%.0f", t);
	else
		tb_buf_printf(b, "%.1f", t);
}

/* As the card reports it: whole GiB, else whole MiB (nvidia-smi's unit,
 * "81,559 MiB" for an H100), else decimal GB (a TPU's documented figure). */
static void S_memory(tb_buf *b, double bytes)
{
	double gib = bytes / 1073741824.0, mib = bytes / 1048576.0;
	if (!(bytes > 0))
		tb_buf_puts(b, "-");
	else if (gib == (double)(long long)gib)
		tb_buf_printf(b, "%.0f GiB", gib);
	else if (mib == (double)(long long)mib && mib >= 1000)
		tb_buf_printf(b, "%lld,%03lld MiB", (long long)mib / 1000, (long long)mib % 1000);
	else
		tb_buf_printf(b, "%.1f GB", bytes / 1e9);
}

char *tb_render_gpus_text(void)
{
	tb_buf o;
	tb_buf_init(&o);
	enum { NCOL = 12, NPEAK = 6 };
	static const char *const head[NCOL] = {
		"NAME", "LABEL", "MEMORY", "BF16", "FP16", "FP8", "FP4", "TF32", "FP32",
		"BANDWIDTH", "TDP", "SMS"
	};
	static const tb_dtype dt[NPEAK] = { TB_DTYPE_BF16, TB_DTYPE_FP16, TB_DTYPE_FP8,
	                                    TB_DTYPE_FP4, TB_DTYPE_TF32, TB_DTYPE_FP32 };
	size_t n = tb_gpus_count();
	char **cells = tb_xcalloc((n + 1) * NCOL, sizeof *cells);
	size_t width[NCOL] = { 0 };
	for (size_t c = 0; c < NCOL; c++)
		cells[c] = tb_xstrdup(head[c]);
	for (size_t i = 0; i < n; i++) {
		const tb_gpu *g = tb_gpus_at(i);
		char **row = cells + (i + 1) * NCOL;
		tb_buf b;
		tb_buf_init(&b);
		row[0] = tb_xstrdup(g->name);
		row[1] = tb_xstrdup(g->label);
		S_memory(&b, g->memory_bytes);
		row[2] = tb_buf_detach(&b, NULL);
		for (size_t k = 0; k < NPEAK; k++) {
			S_tflops(&b, g->peak_flops[dt[k]]);
			row[3 + k] = tb_buf_detach(&b, NULL);
		}
		if (g->bandwidth_bytes_per_s > 0)
			tb_buf_printf(&b, "%.2f TB/s", g->bandwidth_bytes_per_s / 1e12);
		else
			tb_buf_puts(&b, "-");
		row[3 + NPEAK] = tb_buf_detach(&b, NULL);
		if (g->tdp_w > 0)
			tb_buf_printf(&b, "%.0f W", g->tdp_w);
		else
			tb_buf_puts(&b, "-");
		row[4 + NPEAK] = tb_buf_detach(&b, NULL);
		if (g->sms > 0)
			tb_buf_printf(&b, "%lld", (long long)g->sms);
		else
			tb_buf_puts(&b, "-");
		row[5 + NPEAK] = tb_buf_detach(&b, NULL);
	}
	for (size_t i = 0; i <= n; i++)
		for (size_t c = 0; c < NCOL; c++) {
			size_t l = strlen(cells[i * NCOL + c]);
			if (l > width[c])
				width[c] = l;
		}
	for (size_t i = 0; i <= n; i++) {
		for (size_t c = 0; c < NCOL; c++) {
			const char *s = cells[i * NCOL + c];
			/* Text left, numbers right, as a reader scans them. */
			int w = (int)width[c];
			if (c < 2)
				tb_buf_printf(&o, "%-*s", c + 1 < NCOL ? w : 0, s);
			else
				tb_buf_printf(&o, "%*s", w, s);
			tb_buf_puts(&o, c + 1 < NCOL ? "  " : "\n");
		}
	}
	tb_buf_puts(&o, "\nBF16 to FP32: dense peak TFLOP/s (vendors' \"with sparsity\" figures halved);\n"
	     "FP4: NVFP4 or MXFP4 with block scales.  '-': not supported.\n"
	     "SMS: streaming multiprocessors, where a source gives them ('-': not known).\n"
	     "Use NAME as hardware.gpu in a scenario.\n");
	for (size_t i = 0; i < (n + 1) * NCOL; i++)
		free(cells[i]);
	free(cells);
	return tb_buf_detach(&o, NULL);
}

char *tb_render_models_text(void)
{
	tb_buf o;
	tb_buf_init(&o);
	size_t n = tb_presets_count();
	size_t wn = 4, wl = 5;
	for (size_t i = 0; i < n; i++) {
		const tb_preset *p = tb_presets_at(i);
		if (strlen(p->name) > wn)
			wn = strlen(p->name);
		if (strlen(p->label) > wl)
			wl = strlen(p->label);
	}
	tb_buf_printf(&o, "%-*s  %-*s  %17s  %s\n", (int)wn, "NAME", (int)wl, "LABEL",
	       "PARAMETERS", "SOURCE");
	for (size_t i = 0; i < n; i++) {
		const tb_preset *p = tb_presets_at(i);
		tb_buf b;
		tb_buf_init(&b);
		tb_fmt_grouped(&b, p->official_params);
		tb_buf_printf(&o, "%-*s  %-*s  %17s  %s\n", (int)wn, p->name, (int)wl, p->label,
		       b.ptr, p->source ? p->source : "");
		tb_buf_release(&b);
	}
	return tb_buf_detach(&o, NULL);
}
