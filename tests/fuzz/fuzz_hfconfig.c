/* fuzz_hfconfig.c: libFuzzer target for tb_hfconfig_parse.
 *
 * On success the model must satisfy what inputs.h promises the
 * calculators (has_shape, positive dimensions); on failure there must be
 * at least one error saying why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trainbudget/diag.h"
#include "trainbudget/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* No terminator: the parser is given a length and must keep to it. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	tb_diags d;
	tb_diags_init(&d);
	tb_model m;
	memset(&m, 0, sizeof m);
	int rc = tb_hfconfig_parse("config.json", text, size, &m, &d);
	if (rc == 0) {
		if (!m.has_shape || m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 ||
		    m.vocab <= 0 || m.head_dim <= 0 || m.kv_heads <= 0 ||
		    m.heads % m.kv_heads != 0 || m.window < 0 || m.window_layers < 0 ||
		    m.window_layers > m.layers || m.dense_layers < 0 ||
		    m.dense_layers > m.layers || m.experts_per_token < 1 ||
		    (m.experts > 1 && m.experts_per_token > m.experts) ||
		    m.kv_lora_rank < 0 || m.q_lora_rank < 0 || m.mtp_modules < 0)
			abort();
	} else if (d.errors == 0) {
		abort();
	}
	char *msg = tb_diags_format(&d);
	free(msg);
	tb_diags_release(&d);
	free(text);
	return 0;
}
