/* pdf_pdfa.h: what makes the sign-off PDF an archival document (PDF/A-2b,
 * ISO 19005-2): its XMP metadata and the sRGB output intent's ICC
 * profile.  Internal to the PDF back end (render_pdf.c). */
#ifndef TB_PDF_PDFA_H
#define TB_PDF_PDFA_H

#include "trainbudget/buf.h"
#include "trainbudget/report.h"

/* The XMP packet for meta: PDF/A-2b's identification, and the title,
 * author, subject, creator tool and dates the Info dictionary holds, the
 * same text (ISO 19005-2, 6.6.2.3.1). */
void tb_pdf_xmp(const tb_report_meta *m, const char *subject, const char *creator, tb_buf *out);

/* An ICC v2 display profile of sRGB (IEC 61966-2-1): its D50-adapted
 * primaries and the sRGB transfer curve, 1,024 points.  Built, not read:
 * the same bytes on every machine. */
void tb_pdf_icc_srgb(tb_buf *out);

#endif
