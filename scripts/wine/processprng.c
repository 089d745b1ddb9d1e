/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Spark's Windows
 * test binaries under Wine only; it is never shipped.
 *
 * Go's runtime (1.22 and later) takes its random bytes from ProcessPrng in
 * bcryptprimitives.dll, which Windows 10 and 11 have and Wine 8.0 (Debian 12)
 * lacks, so every Go program dies at start there. This DLL exports the one
 * function, by asking bcrypt.dll's BCryptGenRandom (which Wine has) for the
 * bytes. scripts/wine/setup-prefix.sh builds it with MinGW-w64 into the
 * private Wine prefix's system32.
 *
 * ProcessPrng is documented to always succeed and return TRUE; if the system
 * RNG ever fails, this aborts the process rather than hand back bytes that
 * are not random.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
			ExitProcess(3);
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst; (void)reason; (void)reserved;
	return TRUE;
}
