/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure tcp's output (report.c): the text and the JSON; and what --apply
 * writes (apply.c). For measure/ and its tests only. */
#pragma once

#include "earlytune.h"
#include "measure/internal.h"

struct mt_report {
	unsigned seconds;
	struct mt_host host;
	struct mt_flow *flows;
	size_t nflows, cap;
};

void mt_report(const struct ctx *c, const struct mt_report *rep);

/* apply.c: --apply, and the sysctl.d file's text (when: seconds since the
 * epoch; was: the value before, NULL when it could not be read). */
int mt_apply(const struct ctx *c, const struct mt_report *rep);
void mt_sysctl_file(struct strbuf *sb, const struct mt_flow *f, const struct mt_verdict *v, const char *host,
		    long long when, const char *was);
