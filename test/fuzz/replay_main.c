/*-------------------------------------------------------------------------
 *
 * replay_main.c
 *	  Replays saved fuzz inputs through a libFuzzer target without libFuzzer.
 *
 * Built together with one fuzz_<target>.c under ASan+UBSan; each argument is
 * a file or a directory of files.  A sanitizer report aborts the process, so
 * surviving every input is the pass condition.  Prints
 * "<program>: N passed, 0 failed".
 *
 * IDENTIFICATION
 *	  test/fuzz/replay_main.c
 *
 *-------------------------------------------------------------------------
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int
replay_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	long		len;
	uint8_t    *buf;

	if (f == NULL)
	{
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	/* An exact-size heap buffer, so ASan sees any over-read. */
	buf = malloc(len > 0 ? (size_t) len : 1);
	if (len > 0 && fread(buf, 1, (size_t) len, f) != (size_t) len)
	{
		perror(path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t) len);
	free(buf);
	replayed++;
	return 0;
}

static int
replay_path(const char *path)
{
	struct stat st;
	DIR		   *dir;
	struct dirent *de;
	int			failures = 0;

	if (stat(path, &st) != 0)
	{
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	dir = opendir(path);
	if (dir == NULL)
	{
		perror(path);
		return 1;
	}
	while ((de = readdir(dir)) != NULL)
	{
		char		child[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		failures += replay_path(child);
	}
	closedir(dir);
	return failures;
}

int
main(int argc, char **argv)
{
	int			failures = 0;

	for (int i = 1; i < argc; i++)
		failures += replay_path(argv[i]);
	printf("%s: %lu passed, %d failed\n", argv[0], replayed, failures);
	return failures ? 1 : 0;
}
