// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The engine table: a new engine is a row here and a file of its own. */
#include <strings.h>
#include "replay/engine/engine.h"

static const struct engine_ops *const engines[] = {
	&engine_uring_ops,
	&engine_aio_ops,
	&engine_psync_ops,
	&engine_threads_ops,
	&engine_null_ops,
};

const struct engine_ops *engine_find(const char *name)
{
	if (!strcasecmp(name, "uring"))
		name = "io_uring";
	else if (!strcasecmp(name, "aio"))
		name = "libaio";
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcasecmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}
