/*-------------------------------------------------------------------------
 *
 * numeric_form.h
 *	  A numeric's stored form read in place: the header parse shared by the
 *	  fast paths that turn a numeric into an unscaled integer (the
 *	  aggregate pushdown's int128 sums, COPY TO's 64-bit DECIMAL sink).
 *
 * The stored form is the on-disk format, stable across releases: a uint16
 * header (the short form carries sign, display scale and weight in it; the
 * long form is followed by an int16 weight), then base-10000 int16 digits,
 * the first of weight 10000^weight.  Callers hand in the varlena's data
 * and length (no header), already detoasted; nothing here allocates.
 *
 *	  src/fdw/numeric_form.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_NUMERIC_FORM_H
#define PF_NUMERIC_FORM_H

typedef struct PfNumericForm
{
	bool		neg;
	int			weight;			/* of digit 0, in powers of 10000 */
	int			ndigits;
	const uint8 *digits;		/* ndigits int16s, unaligned */
} PfNumericForm;

/*
 * Parse the header of the len bytes at p into *f.  False for NaN and the
 * infinities, and for bytes too short to be a numeric.
 */
static inline bool
pf_numeric_form(const uint8 *p, Size len, PfNumericForm *f)
{
	uint16		head;

	if (len < sizeof(uint16))
		return false;
	memcpy(&head, p, sizeof(uint16));
	if ((head & 0xC000) == 0xC000)
		return false;			/* NaN or an infinity */
	if (head & 0x8000)
	{
		f->neg = (head & 0x2000) != 0;
		f->weight = (head & 0x0040) ? (int) (head & 0x003F) - 64 :
			(int) (head & 0x003F);
		f->digits = p + sizeof(uint16);
		f->ndigits = (int) ((len - sizeof(uint16)) / sizeof(int16));
	}
	else
	{
		int16		w;

		if (len < 2 * sizeof(uint16))
			return false;
		f->neg = (head & 0xC000) == 0x4000;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		f->weight = w;
		f->digits = p + 2 * sizeof(uint16);
		f->ndigits = (int) ((len - 2 * sizeof(uint16)) / sizeof(int16));
	}
	return true;
}

/* Digit i (0 <= i < ndigits) of a parsed form. */
static inline int16
pf_numeric_digit(const PfNumericForm *f, int i)
{
	int16		d;

	memcpy(&d, f->digits + i * sizeof(int16), sizeof(int16));
	return d;
}

#endif							/* PF_NUMERIC_FORM_H */
