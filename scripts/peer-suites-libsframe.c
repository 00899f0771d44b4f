/* peer-suites-libsframe.c - prints libsframe's decoding of a raw SFrame
   section for scripts/peer-suites.py to compare with sfdbg's: the FDE
   count, then per FDE its raw start field, size and FRE count, per FRE
   its start offset and, for DEFAULT FDEs, its CFA offset. Built and run
   by scripts/peer-suites.sh against Debian's libsframe (sframe-api.h of
   the same binutils). Exit status 2 when sframe_decode refuses the data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "sframe-api.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: %s FILE\n", argv[0]);
      return 2;
    }
  FILE *fp = fopen (argv[1], "rb");
  if (fp == NULL)
    {
      perror (argv[1]);
      return 2;
    }
  static char buf[1 << 20];
  size_t n = fread (buf, 1, sizeof buf, fp);
  fclose (fp);
  int err = 0;
  sframe_decoder_ctx *d = sframe_decode (buf, n, &err);
  if (d == NULL)
    {
      fprintf (stderr, "sframe_decode: %s\n", sframe_errmsg (err));
      return 2;
    }
  uint32_t nf = sframe_decoder_get_num_fidx (d);
  uint8_t ver = sframe_decoder_get_version (d);
  printf ("fdes %u\n", nf);
  for (uint32_t i = 0; i < nf; i++)
    {
      uint32_t nfres = 0, size = 0;
      int64_t start = 0;
      unsigned char info = 0, info2 = 0;
      uint8_t rep = 0;
      int rc;
      if (ver >= 3)
	rc = sframe_decoder_get_funcdesc_v3 (d, i, &nfres, &size, &start, &info, &info2, &rep);
      else
	{
	  int32_t s32 = 0;
	  rc = sframe_decoder_get_funcdesc_v2 (d, i, &nfres, &size, &s32, &info, &rep);
	  start = s32;
	}
      if (rc != 0)
	{
	  printf ("fde-error %u\n", i);
	  continue;
	}
      printf ("fde %u %lld %u %u\n", i, (long long) start, size, nfres);
      /* FDE type: v2 info bit 5 (PCMASK is bit 4); v3 moved it to info2.  */
      int fde_type = ver >= 3 ? (info2 & 0x1f) : 0;
      for (uint32_t j = 0; j < nfres; j++)
	{
	  sframe_frame_row_entry fre;
	  if (sframe_decoder_get_fre (d, i, j, &fre) != 0)
	    {
	      printf ("fre-error\n");
	      continue;
	    }
	  printf ("fre %u", fre.fre_start_addr);
	  if (fde_type == 0)
	    {
	      int e = 0;
	      int32_t cfa = sframe_fre_get_cfa_offset (d, &fre, fde_type, &e);
	      printf (" cfa %d", e ? 0 : cfa);
	    }
	  printf ("\n");
	}
    }
  sframe_decoder_free (&d);
  return 0;
}
