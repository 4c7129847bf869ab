/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure tcp's output (report.c): the text and the JSON. For measure/ only. */
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
