/*-------------------------------------------------------------------------
 *
 * dispatch.c
 *	  CPU feature probe and the instruction set the codec kernels use.
 *
 * The ISA is picked once, on first call of cdc_isa_current(), from CPUID and
 * XGETBV of the running CPU (never from the build machine: no -march flags),
 * then overridden by the environment variable PARQUET_FDW_SIMD
 * (scalar|avx2|avx512|auto) if set, or later by cdc_set_isa().
 *
 * Design notes: there is no shared table of function pointers.  Each
 * encoding file calls cdc_isa_current() once per call and switches on the
 * result, so engineers adding an encoding never edit this file.  That makes
 * cdc_isa_current() a hot call: after the first probe it is one load and one
 * compare.  PostgreSQL backends are single-threaded, so the lazy
 * initialization needs no locking (racing threads would compute the same
 * value anyway).
 *
 * A CPU feature is usable only if the OS also saves the register state:
 * AVX2 needs OSXSAVE plus XMM|YMM in XCR0; AVX-512 needs F, BW and VL plus
 * opmask|ZMM_Hi256|Hi16_ZMM in XCR0.  BMI2 is required with AVX2 because the
 * AVX2 kernels may use it.
 *
 * IDENTIFICATION
 *	  src/codec/dispatch.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CDC_X86 1
#endif

/* CDC_ISA_COUNT means "not chosen yet". */
static CdcIsa cdc_isa_active = CDC_ISA_COUNT;
static CdcIsa cdc_isa_probed = CDC_ISA_COUNT;

#ifdef CDC_X86
static uint64_t
read_xcr0(void)
{
	uint32_t	eax,
				edx;

	/* xgetbv with ecx = 0; spelled as bytes so no -mxsave is needed. */
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
	return ((uint64_t) edx << 32) | eax;
}
#endif

/* Probe the CPU and OS; the answer never changes, so cache it. */
static CdcIsa
probe_best_isa(void)
{
#ifdef CDC_X86
	unsigned int eax,
				ebx,
				ecx,
				edx;
	unsigned int max_leaf;
	uint64_t	xcr0;
	bool		avx2,
				avx512;

	max_leaf = __get_cpuid_max(0, NULL);
	if (max_leaf < 7)
		return CDC_ISA_SCALAR;
	__cpuid(1, eax, ebx, ecx, edx);
	if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX))
		return CDC_ISA_SCALAR;
	xcr0 = read_xcr0();
	/* XMM (bit 1) and YMM (bit 2) state enabled by the OS. */
	if ((xcr0 & 0x6) != 0x6)
		return CDC_ISA_SCALAR;

	__cpuid_count(7, 0, eax, ebx, ecx, edx);
	avx2 = (ebx & bit_AVX2) && (ebx & bit_BMI2);
	if (!avx2)
		return CDC_ISA_SCALAR;

	/* Opmask (5), ZMM_Hi256 (6), Hi16_ZMM (7) plus the AVX state. */
	avx512 = (ebx & bit_AVX512F) && (ebx & bit_AVX512BW) &&
		(ebx & bit_AVX512VL) && (xcr0 & 0xE6) == 0xE6;
	return avx512 ? CDC_ISA_AVX512 : CDC_ISA_AVX2;
#else
	return CDC_ISA_SCALAR;
#endif
}

/* Best ISA the running CPU supports. */
CdcIsa
cdc_isa_best(void)
{
	if (cdc_isa_probed == CDC_ISA_COUNT)
		cdc_isa_probed = probe_best_isa();
	return cdc_isa_probed;
}

/* Whether kernels for isa can run here (the ISAs are nested). */
bool
cdc_isa_supported(CdcIsa isa)
{
	return (unsigned) isa < CDC_ISA_COUNT && isa <= cdc_isa_best();
}

/* First-use choice: the best ISA, unless PARQUET_FDW_SIMD says otherwise.
 * An unknown or unsupported name falls back to the best ISA (forcing a
 * vector ISA the CPU lacks would crash with SIGILL). */
static CdcIsa
choose_initial_isa(void)
{
	const char *env = getenv("PARQUET_FDW_SIMD");
	CdcIsa		isa;

	if (env != NULL && cdc_isa_from_name(env, &isa) && cdc_isa_supported(isa))
		return isa;
	return cdc_isa_best();
}

/*
 * The ISA the kernels use now.  Cheap: encoding files call it once per call.
 */
CdcIsa
cdc_isa_current(void)
{
	if (__builtin_expect(cdc_isa_active == CDC_ISA_COUNT, 0))
		cdc_isa_active = choose_initial_isa();
	return cdc_isa_active;
}

/* Force an ISA (tests, benchmarks); fails if the CPU lacks it. */
CdcStatus
cdc_set_isa(CdcIsa isa)
{
	if ((unsigned) isa >= CDC_ISA_COUNT)
		return CDC_ERR_INVALID_ARGUMENT;
	if (!cdc_isa_supported(isa))
		return CDC_ERR_UNSUPPORTED;
	cdc_isa_active = isa;
	return CDC_OK;
}

const char *
cdc_isa_name(CdcIsa isa)
{
	switch (isa)
	{
		case CDC_ISA_SCALAR:
			return "scalar";
		case CDC_ISA_AVX2:
			return "avx2";
		case CDC_ISA_AVX512:
			return "avx512";
		default:
			return "unknown";
	}
}

/* Parse a PARQUET_FDW_SIMD value, case-insensitive; "auto" = best. */
bool
cdc_isa_from_name(const char *name, CdcIsa *isa)
{
	if (name == NULL)
		return false;
	if (strcasecmp(name, "auto") == 0)
	{
		*isa = cdc_isa_best();
		return true;
	}
	for (int i = 0; i < CDC_ISA_COUNT; i++)
	{
		if (strcasecmp(name, cdc_isa_name((CdcIsa) i)) == 0)
		{
			*isa = (CdcIsa) i;
			return true;
		}
	}
	return false;
}

const char *
cdc_status_message(CdcStatus status)
{
	switch (status)
	{
		case CDC_OK:
			return "success";
		case CDC_ERR_TRUNCATED:
			return "encoded data is truncated";
		case CDC_ERR_CORRUPT:
			return "encoded data is corrupt";
		case CDC_ERR_OUTPUT_FULL:
			return "output buffer is too small";
		case CDC_ERR_UNSUPPORTED:
			return "unsupported encoding parameter";
		case CDC_ERR_INVALID_ARGUMENT:
			return "invalid argument";
	}
	return "unknown codec status";
}
