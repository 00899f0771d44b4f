/* objlib.c - a second object for the object, archive and lld fixtures
 * (scripts/build-object-fixtures.sh): testdata/obj/libobj-*.a hold it
 * beside objsections.o, and lld links the two into one executable whose
 * .sframe is the two objects' sections back to back.
 */
#include <string.h>

int lib_checksum(const unsigned char *p, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = s * 31 + p[i];
	return s;
}

__attribute__((noinline)) static int lib_fill(char *buf, int n, int c)
{
	memset(buf, c, n);
	return buf[n / 2];
}

int lib_scratch(int n)
{
	char buf[512];
	if (n < 1 || n > 512)
		return -1;
	return lib_fill(buf, n, 'a' + n % 26) + lib_checksum((const unsigned char *)buf, n);
}
