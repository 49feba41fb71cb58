/*
 * fake_env.h: an environment for the settings chains of src/remote, which
 * read variables through a getenv-like callback: tests set names here
 * instead of in the process, so cases cannot leak into each other.
 */
#ifndef FAKE_ENV_H
#define FAKE_ENV_H

#include <string.h>

typedef struct FakeEnv
{
	const char *names[12];
	const char *values[12];
	int			n;
} FakeEnv;

/* The callback: arg is the FakeEnv. */
static inline const char *
fake_getenv(const char *name, void *arg)
{
	FakeEnv    *e = arg;

	for (int i = 0; i < e->n; i++)
		if (strcmp(e->names[i], name) == 0)
			return e->values[i];
	return NULL;
}

/* Set name (value and name must outlive the FakeEnv; 12 at most). */
static inline void
fake_env_set(FakeEnv *e, const char *name, const char *value)
{
	e->names[e->n] = name;
	e->values[e->n++] = value;
}

#endif							/* FAKE_ENV_H */
