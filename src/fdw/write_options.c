/*-------------------------------------------------------------------------
 *
 * write_options.c
 *	  COPY ... TO (FORMAT parquet, ...) options: defaults and validation
 *	  (see PfWriteOptions in write_sink.h).
 *
 * Every error names the option and what it accepts, so a user never has to
 * look the valid values up.
 *
 * IDENTIFICATION
 *	  src/fdw/write_options.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/defrem.h"
#include "utils/builtins.h"
#include "utils/varlena.h"

#include "compress/compress.h"
#include "fdw/write_sink.h"

#define PF_DEFAULT_ROW_GROUP_ROWS	122880
#define PF_DEFAULT_ROW_GROUP_BYTES	(INT64CONST(128) * 1024 * 1024)
#define PF_DEFAULT_PAGE_BYTES		(1024 * 1024)

void
pf_write_options_init(PfWriteOptions *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->row_group_size = PF_DEFAULT_ROW_GROUP_ROWS;
	opts->row_group_size_bytes = PF_DEFAULT_ROW_GROUP_BYTES;
	opts->codec = CMP_SNAPPY;
	opts->page_size = PF_DEFAULT_PAGE_BYTES;
	opts->dictionary = true;
	opts->data_page_version = 1;
	opts->statistics = true;
	opts->page_index = true;
	opts->bloom_filter_fpp = 0.01;
}

static const struct
{
	const char *name;
	CmpCodec	codec;
}			codec_names[] =
{
	{"uncompressed", CMP_UNCOMPRESSED},
	{"snappy", CMP_SNAPPY},
	{"gzip", CMP_GZIP},
	{"zstd", CMP_ZSTD},
	{"lz4_raw", CMP_LZ4_RAW},
	{"brotli", CMP_BROTLI},
};

static void pg_attribute_noreturn()
bad_value(const DefElem *def, const char *valid)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for COPY option \"%s\": \"%s\"",
					def->defname, defGetString((DefElem *) def)),
			 errhint("Valid values are %s.", valid)));
}

static int64
positive_int(DefElem *def, int64 min, int64 max, const char *valid)
{
	char	   *s = defGetString(def);
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		bad_value(def, valid);
	return (int64) v;
}

static bool
boolean_value(DefElem *def)
{
	char	   *s = defGetString(def);
	bool		result;

	if (!parse_bool(s, &result))
		bad_value(def, "true and false");
	return result;
}

/* "a, b" -> list of trimmed names; empty names are an error. */
static List *
name_list(DefElem *def)
{
	char	   *s = pstrdup(defGetString(def));
	List	   *names = NIL;
	char	   *tok;
	char	   *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		char	   *end;

		while (*tok == ' ' || *tok == '\t')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*tok == '\0')
			bad_value(def, "a comma-separated list of column names");
		names = lappend(names, tok);
	}
	if (names == NIL)
		bad_value(def, "a comma-separated list of column names");
	return names;
}

void
pf_write_options_parse(List *defelems, PfWriteOptions *opts)
{
	ListCell   *lc;
	List	   *seen = NIL;

	foreach(lc, defelems)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		const char *name = def->defname;

		if (list_member(seen, makeString((char *) name)))
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("conflicting or redundant options"),
					 errdetail("COPY option \"%s\" is given twice.", name)));
		seen = lappend(seen, makeString((char *) name));

		if (strcmp(name, "row_group_size") == 0)
			opts->row_group_size = positive_int(def, 1, INT32_MAX,
												"integers from 1 to 2147483647 (rows)");
		else if (strcmp(name, "row_group_size_bytes") == 0)
			opts->row_group_size_bytes = positive_int(def, 1024, INT64CONST(1) << 40,
													  "integers from 1024 to 2^40 (bytes)");
		else if (strcmp(name, "compression") == 0)
		{
			char	   *s = defGetString(def);
			bool		found = false;

			for (int i = 0; i < lengthof(codec_names); i++)
				if (pg_strcasecmp(s, codec_names[i].name) == 0)
				{
					opts->codec = codec_names[i].codec;
					found = true;
				}
			if (!found)
				bad_value(def, "uncompressed, snappy, gzip, zstd, lz4_raw and brotli");
		}
		else if (strcmp(name, "compression_level") == 0)
			opts->compression_level = (int) positive_int(def, 1, 22,
														 "integers from 1 to 22 (gzip: 1-9, brotli: 1-11, zstd: 1-22)");
		else if (strcmp(name, "page_size") == 0)
			opts->page_size = positive_int(def, 1024, INT64CONST(1) << 30,
										   "integers from 1024 to 2^30 (bytes)");
		else if (strcmp(name, "dictionary") == 0)
			opts->dictionary = boolean_value(def);
		else if (strcmp(name, "data_page_version") == 0)
			opts->data_page_version = (int) positive_int(def, 1, 2, "1 and 2");
		else if (strcmp(name, "statistics") == 0)
			opts->statistics = boolean_value(def);
		else if (strcmp(name, "page_index") == 0)
			opts->page_index = boolean_value(def);
		else if (strcmp(name, "bloom_filter_columns") == 0)
			opts->bloom_filter_columns = name_list(def);
		else if (strcmp(name, "bloom_filter_fpp") == 0)
		{
			char	   *s = defGetString(def);
			char	   *end;
			double		v = strtod(s, &end);

			if (end == s || *end != '\0' || !(v > 0.0 && v < 1.0))
				bad_value(def, "numbers between 0 and 1, exclusive");
			opts->bloom_filter_fpp = v;
		}
		else if (strcmp(name, "bloom_filter_ndv") == 0)
			opts->bloom_filter_ndv = positive_int(def, 1, INT32_MAX,
												  "integers from 1 to 2147483647");
		else if (strcmp(name, "sorting_columns") == 0)
			opts->sorting_columns = name_list(def);
		else if (strcmp(name, "field_ids") == 0)
			opts->field_ids = boolean_value(def);
		else if (strcmp(name, "file_size_bytes") == 0)
			opts->file_size_bytes = positive_int(def, 1024, INT64CONST(1) << 50,
												 "integers from 1024 to 2^50 (bytes)");
		else
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("COPY option \"%s\" is not valid with FORMAT parquet", name),
					 errhint("Valid options are row_group_size, row_group_size_bytes, compression, compression_level, page_size, dictionary, data_page_version, statistics, page_index, bloom_filter_columns, bloom_filter_fpp, bloom_filter_ndv, sorting_columns, field_ids and file_size_bytes.")));
	}
	if (opts->compression_level != 0 &&
		(opts->codec == CMP_UNCOMPRESSED || opts->codec == CMP_SNAPPY ||
		 opts->codec == CMP_LZ4_RAW))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("COPY option \"compression_level\" needs compression gzip, zstd or brotli")));
}
