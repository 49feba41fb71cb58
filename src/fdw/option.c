/*-------------------------------------------------------------------------
 *
 * option.c
 *	  Options of parquet_fdw foreign tables and their columns.
 *
 * Foreign table options:
 *	filename		one or more Parquet files, comma-separated; a path holding
 *					a comma or surrounding blanks is written in double quotes
 *					('/a.parquet, "/b,c.parquet"').  An entry naming a folder
 *					stands for the *.parquet files below it (recursively), an
 *					entry with * ? or [ is a glob(3) pattern (see files.c).
 *					A backslash makes the next character literal (\* \? \[
 *					\, \\): an entry with no unescaped wildcard is a path.
 *					Files are scanned in the order given, each folder's and
 *					pattern's files in path order.
 *	allow_empty		'true': an entry may yield no file (0 rows); by default
 *					a pattern or folder without files is an error.
 *	missing_columns	unset (default): a column a file lacks reads as NULL in
 *					that file's rows, but a column no file has is an error
 *					(a misspelt name); 'null': NULL even then; 'error':
 *					every file must have every column.
 *	filename_column	the name of the column that holds each row's file path
 *					(as the column option of that name does).
 *
 * Column options:
 *	column_name		the file's field this column reads (default: the
 *					column's own name; matched exactly, else case-insensitively
 *					when that is unambiguous).
 *	filename_column	'true': the column holds the path of each row's file.
 *
 * Foreign server options (object-store URLs; remote_config.c):
 *	endpoint		"host[:port]" or "http(s)://host[:port][/path]" of an
 *					S3-compatible or Azure store; no credentials in it.
 *	region, url_style ('vhost' | 'path'), use_ssl, verify_tls (booleans),
 *	ca_file			a PEM file of trusted CAs (a server file: superuser or
 *					pg_read_server_files, as filename).
 *	list_page_size	keys per listing page (1..1000; default: the store's).
 *	coalesce_gap	bytes a read bridges between two column chunks rather
 *					than send another request (default 0: adaptive, from
 *					the measured latency and bytes/s).
 *	max_connections	connections one backend keeps open to the store
 *					(default 16), across the row groups read ahead.
 *	batch_size		rows per batched INSERT.
 *
 * User mapping options (credentials; never printed back in errors):
 *	key_id, secret, session_token (S3, GCS HMAC keys), account_name,
 *	account_key, sas_token, connection_string (Azure).
 *
 * Setting filename needs the privileges of file_fdw's filename: superuser or
 * pg_read_server_files, since it lets the server read any file it can.
 *
 * IDENTIFICATION
 *	  src/fdw/option.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "fdw/parquet_fdw.h"
#include "remote/settings.h"

/* One valid option and the catalog it belongs to. */
typedef struct PfOption
{
	const char *name;
	Oid			context;		/* pg_foreign_table, pg_attribute, ... */
} PfOption;

static const PfOption valid_options[] = {
	{"filename", ForeignTableRelationId},
	{"missing_columns", ForeignTableRelationId},
	{"format", ForeignTableRelationId},
	{"verify_checksums", ForeignTableRelationId},
	{"guid_byte_order", ForeignTableRelationId},
	{"sorted", ForeignTableRelationId},
	{"allow_empty", ForeignTableRelationId},
	{"column_name", AttributeRelationId},
	{"filename_column", AttributeRelationId},
	{"filename_column", ForeignTableRelationId},
	{"batch_size", ForeignTableRelationId},	/* INSERT: modify.c */
	{"batch_size", ForeignServerRelationId},
	/* object-store URLs: where and how (remote_config.c merges them) */
	{"endpoint", ForeignServerRelationId},
	{"region", ForeignServerRelationId},
	{"url_style", ForeignServerRelationId},
	{"use_ssl", ForeignServerRelationId},
	{"verify_tls", ForeignServerRelationId},
	{"ca_file", ForeignServerRelationId},
	{"list_page_size", ForeignServerRelationId},
	{"coalesce_gap", ForeignServerRelationId},
	{"max_connections", ForeignServerRelationId},
	/* object-store URLs: who (S3 / GCS HMAC, then Azure) */
	{"key_id", UserMappingRelationId},
	{"secret", UserMappingRelationId},
	{"session_token", UserMappingRelationId},
	{"account_name", UserMappingRelationId},
	{"account_key", UserMappingRelationId},
	{"sas_token", UserMappingRelationId},
	{"connection_string", UserMappingRelationId},
	{NULL, InvalidOid}
};

/* What the options are attached to, for messages. */
static const char *
context_name(Oid catalog)
{
	switch (catalog)
	{
		case ForeignTableRelationId:
			return "foreign table";
		case AttributeRelationId:
			return "foreign table column";
		case ForeignServerRelationId:
			return "foreign server";
		case UserMappingRelationId:
			return "user mapping";
		case ForeignDataWrapperRelationId:
			return "foreign-data wrapper";
	}
	return "object";
}

/*
 * The valid option of this catalog closest to `name` by edit distance, or
 * NULL when none is close enough to be a plausible typo (more than half of
 * the longer name would have to change).
 */
static const char *
closest_option(const char *name, Oid catalog)
{
	const char *best = NULL;
	int			best_dist = INT_MAX;
	int			len = strlen(name);

	for (const PfOption *opt = valid_options; opt->name; opt++)
	{
		int			olen = strlen(opt->name);
		int			dist;

		if (opt->context != catalog)
			continue;
		dist = varstr_levenshtein(name, len, opt->name, olen, 1, 1, 1, false);
		if (dist < best_dist && dist <= Max(len, olen) / 2)
		{
			best_dist = dist;
			best = opt->name;
		}
	}
	return best;
}

/* "filename, missing_columns": the valid options of a catalog. */
static char *
valid_option_list(Oid catalog)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const PfOption *opt = valid_options; opt->name; opt++)
	{
		if (opt->context != catalog)
			continue;
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, opt->name);
	}
	return buf.data;
}

static void pg_attribute_noreturn()
invalid_option(const char *name, Oid catalog)
{
	const char *closest = closest_option(name, catalog);
	char	   *valid = valid_option_list(catalog);

	if (closest)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\" for a parquet_fdw %s",
						name, context_name(catalog)),
				 errhint("Perhaps you meant the option \"%s\".", closest)));
	else if (valid[0] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\" for a parquet_fdw %s",
						name, context_name(catalog)),
				 errhint("Valid options in this context are: %s.", valid)));
	else
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\" for a parquet_fdw %s",
						name, context_name(catalog)),
				 errhint("A parquet_fdw %s takes no options.",
						 context_name(catalog))));
}

/*
 * pf_check_file_access
 *		Reading server files needs superuser or pg_read_server_files, as
 *		file_fdw's filename and COPY FROM a file do.
 */
void
pf_check_file_access(const char *what)
{
	if (!superuser() &&
		!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s", what),
				 errhint("Only superusers and roles with privileges of the \"%s\" role may read server files.",
						 "pg_read_server_files")));
}

/*
 * Split a filename option into its paths.  Comma-separated, blanks around
 * each entry trimmed, double quotes protect commas and blanks (a doubled
 * quote inside quotes is a quote), and so does a backslash the character
 * after it; backslashes are kept, for files.c to read them as escapes.
 * Errors on empty entries and bad quoting.
 */
static List *
split_filenames(const char *value)
{
	List	   *result = NIL;
	const char *p = value;

	for (;;)
	{
		StringInfoData path;

		initStringInfo(&path);
		while (scanner_isspace(*p))
			p++;
		if (*p == '"')
		{
			p++;
			for (;;)
			{
				if (*p == '\0')
					ereport(ERROR,
							(errcode(ERRCODE_FDW_INVALID_STRING_FORMAT),
							 errmsg("unterminated quoted path in option \"filename\""),
							 errdetail("The value is: %s", value)));
				if (*p == '"')
				{
					if (p[1] != '"')
						break;
					p++;
				}
				appendStringInfoChar(&path, *p++);
			}
			p++;				/* closing quote */
			while (scanner_isspace(*p))
				p++;
			if (*p != ',' && *p != '\0')
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_STRING_FORMAT),
						 errmsg("unexpected text after a quoted path in option \"filename\""),
						 errdetail("The value is: %s", value)));
		}
		else
		{
			const char *start = p;
			const char *end;
			const char *escaped_end = start;	/* after the last escape */

			while (*p != ',' && *p != '\0')
			{
				if (*p == '\\' && p[1] != '\0')
				{
					p += 2;
					escaped_end = p;
				}
				else
					p++;
			}
			end = p;
			while (end > escaped_end && scanner_isspace(end[-1]))
				end--;
			appendBinaryStringInfo(&path, start, end - start);
		}

		if (path.len == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_STRING_FORMAT),
					 errmsg("option \"filename\" has an empty file name"),
					 errdetail("The value is: %s", value),
					 errhint("List files separated by commas; quote a path that holds a comma with double quotes.")));
		result = lappend(result, path.data);

		if (*p == '\0')
			break;
		Assert(*p == ',');
		p++;
	}
	return result;
}

static const char *
option_value(List *options, const char *name)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

/*
 * A foreign server's object-store options.  ALTER SERVER passes the
 * resulting list, so the checks across options hold after it too.
 */
/* A server option that is a whole number in [min, max]. */
static void
check_count_option(List *options, const char *name, int64 min, int64 max)
{
	const char *value = option_value(options, name);
	int64		n = 0;

	if (value == NULL)
		return;
	for (const char *p = value; *p && n >= 0 && n <= max; p++)
		n = (*p >= '0' && *p <= '9') ? n * 10 + (*p - '0') : -1;
	if (value[0] == '\0' || n < min || n > max)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
				 errhint("Valid values are whole numbers from " INT64_FORMAT " to " INT64_FORMAT ".",
						 min, max)));
}

static void
validate_server_remote(List *options)
{
	const char *endpoint = option_value(options, "endpoint");
	const char *url_style = option_value(options, "url_style");
	const char *region = option_value(options, "region");
	const char *ca_file = option_value(options, "ca_file");
	ListCell   *lc;
	int			endpoint_ssl = -1;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "use_ssl") == 0 ||
			strcmp(def->defname, "verify_tls") == 0)
			(void) defGetBoolean(def);
	}
	if (endpoint != NULL)
	{
		char		why[160];

		if (rmt_endpoint_parse(endpoint, NULL, 0, &endpoint_ssl, why, sizeof(why)) != RMT_OK)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("invalid value for option \"endpoint\""),
					 errdetail("%c%s.", pg_toupper((unsigned char) why[0]), why + 1),
					 errhint("An endpoint is \"host[:port]\" or \"http(s)://host[:port][/path]\"; credentials belong in a user mapping.")));
	}
	if (endpoint_ssl >= 0 && option_value(options, "use_ssl") != NULL)
	{
		DefElem    *use_ssl = NULL;

		foreach(lc, options)
			if (strcmp(((DefElem *) lfirst(lc))->defname, "use_ssl") == 0)
				use_ssl = lfirst(lc);
		if (defGetBoolean(use_ssl) != (endpoint_ssl == 1))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("option \"use_ssl\" contradicts the scheme of option \"endpoint\""),
					 errhint("Drop one of them: \"%s\" already says whether to use TLS.",
							 endpoint_ssl ? "https://" : "http://")));
	}
	if (url_style != NULL &&
		pg_strcasecmp(url_style, "vhost") != 0 && pg_strcasecmp(url_style, "path") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"url_style\": \"%s\"", url_style),
				 errhint("Valid values are \"vhost\" (bucket.host/key) and \"path\" (host/bucket/key).")));
	check_count_option(options, "list_page_size", 1, 1000);
	check_count_option(options, "coalesce_gap", 0, INT64CONST(1) << 30);
	check_count_option(options, "max_connections", 1, 256);
	if (region != NULL && region[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"region\" must not be empty")));
	if (ca_file != NULL)
	{
		/* the server reads that file: the privilege of filename */
		pf_check_file_access("set option \"ca_file\" of a parquet_fdw foreign server");
		if (!is_absolute_path(ca_file))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("option \"ca_file\" must be an absolute path")));
	}
}

/*
 * A user mapping's credentials: which go together.  Values are secrets:
 * no message here prints one.
 */
static void
validate_mapping_remote(List *options)
{
	bool		has_key_id = option_value(options, "key_id") != NULL;
	bool		has_secret = option_value(options, "secret") != NULL;
	bool		has_token = option_value(options, "session_token") != NULL;
	bool		has_cs = option_value(options, "connection_string") != NULL;
	bool		has_account_key = option_value(options, "account_key") != NULL;
	bool		has_sas = option_value(options, "sas_token") != NULL;
	bool		has_account = option_value(options, "account_name") != NULL;
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (defGetString(def)[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("option \"%s\" must not be empty", def->defname)));
	}
	if (has_key_id != has_secret)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("options \"key_id\" and \"secret\" go together"),
				 errhint("Give both, or neither for the environment's credentials or anonymous reads.")));
	if (has_token && !has_key_id)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("option \"session_token\" needs \"key_id\" and \"secret\"")));
	if (has_cs && (has_account_key || has_sas || has_account))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("option \"connection_string\" cannot be combined with \"account_name\", \"account_key\" or \"sas_token\""),
				 errhint("The connection string names the account and its credentials itself.")));
	if (has_account_key && has_sas)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("options \"account_key\" and \"sas_token\" cannot be combined"),
				 errhint("Give the account key (Shared Key signing) or a SAS token, not both.")));
	if (has_cs)
	{
		const char *cs = option_value(options, "connection_string");
		char		v[2048];
		bool		too_long;
		bool		any = false;

		for (int i = 0; i < 4; i++)
		{
			static const char *const fields[] = {"AccountName", "AccountKey",
			"SharedAccessSignature", "BlobEndpoint"};

			if (rmt_connection_string_field(cs, fields[i], v, sizeof(v), &too_long))
				any = true;
			if (too_long)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("field \"%s\" of option \"connection_string\" is too long", fields[i])));
		}
		explicit_bzero(v, sizeof(v));
		if (!any)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("option \"connection_string\" names no AccountName, AccountKey, SharedAccessSignature or BlobEndpoint"),
					 errhint("An Azure connection string is \"AccountName=...;AccountKey=...\" (fields separated by semicolons).")));
	}
}

/*
 * pf_validate_options
 *		The validator: option names, values, duplicates and the privilege to
 *		name server files.
 */
void
pf_validate_options(List *options, Oid catalog)
{
	DefElem    *filename = NULL;
	DefElem    *missing_columns = NULL;
	DefElem    *column_name = NULL;
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);
		const PfOption *opt;

		for (opt = valid_options; opt->name; opt++)
			if (opt->context == catalog && strcmp(opt->name, def->defname) == 0)
				break;
		if (opt->name == NULL)
			invalid_option(def->defname, catalog);

		if (strcmp(def->defname, "filename") == 0)
		{
			if (filename)
				errorConflictingDefElem(def, NULL);
			filename = def;

			/*
			 * As file_fdw: the check belongs in the validator, since a
			 * superuser may create the table and hand it to others.
			 */
			pf_check_file_access("set option \"filename\" of a parquet_fdw foreign table");
			(void) split_filenames(defGetString(def));
		}
		else if (strcmp(def->defname, "missing_columns") == 0)
		{
			char	   *v;

			if (missing_columns)
				errorConflictingDefElem(def, NULL);
			missing_columns = def;
			v = defGetString(def);
			if (pg_strcasecmp(v, "null") != 0 && pg_strcasecmp(v, "error") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"missing_columns\": \"%s\"", v),
						 errhint("Valid values are \"null\" and \"error\".")));
		}
		else if (strcmp(def->defname, "format") == 0)
		{
			/* the files' format: plan.c (pf_table_source) reads it */
			char	   *v = defGetString(def);

			if (pg_strcasecmp(v, "auto") != 0 && pg_strcasecmp(v, "parquet") != 0 &&
				pg_strcasecmp(v, "amudai") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"format\": \"%s\"", v),
						 errhint("Valid values are \"auto\", \"parquet\" and \"amudai\".")));
		}
		else if (strcmp(def->defname, "verify_checksums") == 0 ||
				 strcmp(def->defname, "allow_empty") == 0)
			(void) defGetBoolean(def);	/* a clear error for a non-boolean */
		else if (strcmp(def->defname, "batch_size") == 0)
		{
			/* rows per ExecForeignBatchInsert call, as postgres_fdw's */
			char	   *v = defGetString(def);
			char	   *end;
			long		n;

			errno = 0;
			n = strtol(v, &end, 10);
			if (errno != 0 || *v == '\0' || *end != '\0' || n < 1 || n > INT_MAX)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"batch_size\": \"%s\"", v),
						 errhint("Valid values are integers from 1 to %d.", INT_MAX)));
		}
		else if (strcmp(def->defname, "sorted") == 0)
			(void) pf_parse_sorted(defGetString(def), NULL);	/* syntax; columns at planning */
		else if (strcmp(def->defname, "guid_byte_order") == 0)
		{
			/* how an Amudai shard's Guid bytes map to uuid: amudai_convert.c */
			char	   *v = defGetString(def);

			if (pg_strcasecmp(v, "rfc4122") != 0 && pg_strcasecmp(v, "dotnet") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"guid_byte_order\": \"%s\"", v),
						 errhint("Valid values are \"rfc4122\" (the stored bytes in order) and \"dotnet\" (the first three groups little-endian).")));
		}
		else if (strcmp(def->defname, "filename_column") == 0 &&
				 catalog == AttributeRelationId)
			(void) defGetBoolean(def);	/* the file's path, when true */
		else if (strcmp(def->defname, "filename_column") == 0)
		{
			/* the table's option names the column */
			if (defGetString(def)[0] == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("option \"filename_column\" must not be empty")));
		}
		else if (strcmp(def->defname, "column_name") == 0)
		{
			if (column_name)
				errorConflictingDefElem(def, NULL);
			column_name = def;
			if (defGetString(def)[0] == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("option \"column_name\" must not be empty")));
		}
	}

	if (catalog == ForeignServerRelationId)
		validate_server_remote(options);
	else if (catalog == UserMappingRelationId)
		validate_mapping_remote(options);

	/* ALTER passes the resulting option list, so this holds after it too */
	if (catalog == ForeignTableRelationId && filename == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("parquet_fdw foreign tables require the option \"filename\"")));
}

/*
 * pf_get_table_options
 *		The options of a foreign table, parsed.
 */
PfTableOptions *
pf_get_table_options(Oid foreigntableid)
{
	ForeignTable *table = GetForeignTable(foreigntableid);
	PfTableOptions *opts = palloc0(sizeof(PfTableOptions));
	ListCell   *lc;

	opts->serverid = table->serverid;

	foreach(lc, table->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "filename") == 0)
			opts->filenames = split_filenames(defGetString(def));
		else if (strcmp(def->defname, "missing_columns") == 0)
		{
			opts->missing_columns_error =
				pg_strcasecmp(defGetString(def), "error") == 0;
			opts->missing_columns_null = !opts->missing_columns_error;
		}
		else if (strcmp(def->defname, "verify_checksums") == 0)
			opts->verify_checksums = defGetBoolean(def);
		else if (strcmp(def->defname, "allow_empty") == 0)
			opts->allow_empty = defGetBoolean(def);
		else if (strcmp(def->defname, "guid_byte_order") == 0)
			opts->guid_dotnet = pg_strcasecmp(defGetString(def), "dotnet") == 0;
		else if (strcmp(def->defname, "sorted") == 0)
			opts->sorted = defGetString(def);
	}
	if (opts->filenames == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("foreign table \"%s\" has no option \"filename\"",
						get_rel_name(foreigntableid))));
	return opts;
}

/*
 * pf_get_column_name
 *		The file field an attribute reads: its column_name option, else the
 *		attribute's name.
 */
char *
pf_get_column_name(Oid relid, AttrNumber attnum)
{
	List	   *options = GetForeignColumnOptions(relid, attnum);
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "column_name") == 0)
			return defGetString(def);
	}
	return get_attname(relid, attnum, false);
}
