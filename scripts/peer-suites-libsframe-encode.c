/* peer-suites-libsframe-encode.c - builds SFrame v3 sections with
   libsframe's encoder, the way its encoder tests do (sframe_encode,
   sframe_encoder_add_funcdesc_v3, sframe_encoder_add_fre,
   sframe_encoder_write), one per ABI and so in both byte orders, and
   writes each to DIR/ENC-<abi>. scripts/peer-suites.py then decodes them
   with libsframe and with sfdbg. Our own FDEs and FREs: ADDR1, ADDR2 and
   a PC-mask FDE, 1- and 2-byte data words.  */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "sframe-api.h"

static int
add (sframe_encoder_ctx *e, int idx, int64_t sec_vaddr, int64_t func_vaddr,
     uint32_t size, uint32_t fre_type, uint32_t pc_type, uint8_t rep,
     sframe_frame_row_entry *fres, int n)
{
  uint32_t at = sframe_encoder_get_offsetof_fde_start_addr (e, idx, NULL);
  unsigned char info = sframe_fde_create_func_info (fre_type, pc_type);
  if (sframe_encoder_add_funcdesc_v3 (e, func_vaddr - (sec_vaddr + at), size,
				      info, 0, rep, n) != 0)
    return -1;
  for (int i = 0; i < n; i++)
    if (sframe_encoder_add_fre (e, idx, fres + i) == SFRAME_ERR)
      return -1;
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct { const char *name; uint8_t abi; int8_t ra; } abis[] = {
    { "aarch64be", SFRAME_ABI_AARCH64_ENDIAN_BIG, 0 },
    { "aarch64", SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 0 },
    { "amd64", SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8 },
    { "s390x", SFRAME_ABI_S390X_ENDIAN_BIG, 0 },
  };
  if (argc != 2)
    {
      fprintf (stderr, "usage: %s DIR\n", argv[0]);
      return 2;
    }
  for (unsigned k = 0; k < sizeof abis / sizeof abis[0]; k++)
    {
      int err = 0;
      int64_t sec = 0x402000;
      sframe_encoder_ctx *e = sframe_encode (SFRAME_VERSION_3, SFRAME_F_FDE_FUNC_START_PCREL,
					     abis[k].abi, SFRAME_CFA_FIXED_FP_INVALID,
					     abis[k].ra, &err);
      if (e == NULL)
	{
	  fprintf (stderr, "sframe_encode %s: %s\n", abis[k].name, sframe_errmsg (err));
	  return 1;
	}
      /* Info bytes: base register, data-word count and size (SFRAME_V1_FRE_INFO).  */
      sframe_frame_row_entry f1[] = {
	{ 0x0, { 0x8 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B) },
	{ 0x1, { 0x10, 0xf0 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 2, SFRAME_FRE_DATAWORD_1B) },
	{ 0x4, { 0x10, 0xf0 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_FP, 2, SFRAME_FRE_DATAWORD_1B) },
	{ 0x1a, { 0x8, 0xf0 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 2, SFRAME_FRE_DATAWORD_1B) },
      };
      sframe_frame_row_entry f2[] = {
	{ 0x0, { 0x8 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B) },
	{ 0x200, { 0 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_2B) },
      };
      int16_t big = 0x1010; /* host order: the encoder writes the target's */
      memcpy (f2[1].fre_datawords, &big, sizeof big);
      sframe_frame_row_entry f3[] = {
	{ 0x0, { 0x8 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B) },
	{ 0x6, { 0x10 }, SFRAME_V1_FRE_INFO (SFRAME_BASE_REG_SP, 1, SFRAME_FRE_DATAWORD_1B) },
      };
      if (add (e, 0, sec, 0x401000, 0x1b, SFRAME_FRE_TYPE_ADDR1, SFRAME_V3_FDE_PCTYPE_INC, 0, f1, 4)
	  || add (e, 1, sec, 0x401020, 0x300, SFRAME_FRE_TYPE_ADDR2, SFRAME_V3_FDE_PCTYPE_INC, 0, f2, 2)
	  || add (e, 2, sec, 0x400f00, 0x40, SFRAME_FRE_TYPE_ADDR1, SFRAME_V3_FDE_PCTYPE_MASK, 16, f3, 2))
	{
	  fprintf (stderr, "adding FDEs for %s failed\n", abis[k].name);
	  return 1;
	}
      size_t n = 0;
      char *buf = sframe_encoder_write (e, &n, true, &err);
      if (buf == NULL)
	{
	  fprintf (stderr, "sframe_encoder_write %s: %s\n", abis[k].name, sframe_errmsg (err));
	  return 1;
	}
      char path[4096];
      snprintf (path, sizeof path, "%s/ENC-%s", argv[1], abis[k].name);
      FILE *fp = fopen (path, "wb");
      if (fp == NULL || fwrite (buf, 1, n, fp) != n || fclose (fp) != 0)
	{
	  perror (path);
	  return 1;
	}
      sframe_encoder_free (&e);
    }
  return 0;
}
