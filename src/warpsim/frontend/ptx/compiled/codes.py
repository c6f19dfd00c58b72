"""Numeric codes shared by the encoder (Python) and the compiled engine (numba).

An encoded kernel is a few integer/float tables: one row per flat PTX instruction (`P`), its
destination registers (`D`), and up to four source operands (`O`, `OF`). Plain module-level ints,
so numba folds them into the compiled code as constants.
"""

from __future__ import annotations

# --- P columns -------------------------------------------------------------------------------------
OPC, TY, AUX, AUX2, GUARD, GNEG, TARGET, IPDOM, SPACE, NVEC, ARID, ARB, AOFF, ISMEM, MEMKIND, NBT, TY2, \
    BLOCK, LEADER = range(19)
P_COLS = 19

# --- operand kinds (O[i, j, 0]) ----------------------------------------------------------------------
K_NONE, K_REG, K_IMM, K_SREG = 0, 1, 2, 3
# O[i, j, 1] = register id / normalized immediate bits / special-register code; O[i, j, 2] = register
# bytes; O[i, j, 3] = type code the operand is read as. OF[i, j] = an immediate's float value.

# --- type codes: bytes | SIGNED | FLOAT, or PRED -------------------------------------------------------
SIGNED, FLOAT, PRED = 16, 32, 64

# --- control ------------------------------------------------------------------------------------------
C_NORMAL, C_BRANCH, C_EXIT, C_TRAP = 0, 1, 2, 3

# --- micro-operations (P[i, OPC]) -------------------------------------------------------------------
(OP_NOP, OP_BRA, OP_EXIT, OP_TRAP,
 OP_MOV, OP_ADD, OP_SUB, OP_MUL_LO, OP_MUL_HI, OP_MUL_WIDE, OP_MAD_LO, OP_MAD_WIDE, OP_MIN, OP_MAX,
 OP_NEG, OP_ABS, OP_DIV, OP_REM, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL, OP_SHR, OP_SELP, OP_SETP,
 OP_CVT_II, OP_CVT_IF, OP_CVT_FI, OP_CVT_FF, OP_POPC, OP_CLZ, OP_CNOT, OP_MAD_HI,
 OP_FADD, OP_FSUB, OP_FMUL, OP_FFMA, OP_FDIV, OP_FMIN, OP_FMAX, OP_FNEG, OP_FABS, OP_FSQRT, OP_FRCP,
 OP_FRSQRT, OP_FEX2, OP_FLG2, OP_FSIN, OP_FCOS,
 OP_LD, OP_ST, OP_LDK, OP_ATOM,
 OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_PACK, OP_UNPACK,
 OP_HOST, OP_WMMA, OP_CVT_H) = range(62)
# OP_HOST: a form without a compiled implementation, run by the reference emulator (host_steps.py)
# OP_WMMA: wmma.load/store/mma (mma.py); its fragment registers are in the F table
# OP_CVT_H: cvt between f32 and f16 (AUX 0: f16 <- f32, 1: f32 <- f16); the f16 side is raw 16 bits

# setp comparisons (AUX)
(CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU,
 CMP_NUM, CMP_NAN) = range(14)
# setp combine (AUX2): 0 none, 1 and, 2 or, 3 xor
# float flags (AUX2 for float ops): bit 0 ftz, bit 1 sat
F_FTZ, F_SAT = 1, 2
# cvt float->int rounding (AUX): 0 rzi, 1 rni, 2 rmi, 3 rpi
# atom ops (AUX)
(AT_ADD, AT_MIN, AT_MAX, AT_EXCH, AT_CAS, AT_AND, AT_OR, AT_XOR, AT_INC, AT_DEC) = range(10)
# shfl modes (AUX)
SH_UP, SH_DOWN, SH_BFLY, SH_IDX = range(4)
# vote modes (AUX)
VO_ALL, VO_ANY, VO_UNI, VO_BALLOT = range(4)
# memory kinds (MEMKIND): profile counters
MK_NONE, MK_LD, MK_ST, MK_ATOM = 0, 1, 2, 3

# special registers (K_SREG codes)
(SR_TID_X, SR_TID_Y, SR_TID_Z, SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_LANEID, SR_WARPID, SR_NTID_X,
 SR_NTID_Y, SR_NTID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
 SR_DYN_SMEM, SR_TOTAL_SMEM, SR_CLOCK, SR_CLOCK64, SR_LM_EQ, SR_LM_LT, SR_LM_LE, SR_LM_GT,
 SR_LM_GE) = range(27)
SREG_CODES = {
    "%tid.x": SR_TID_X, "%tid.y": SR_TID_Y, "%tid.z": SR_TID_Z, "%ctaid.x": SR_CTAID_X,
    "%ctaid.y": SR_CTAID_Y, "%ctaid.z": SR_CTAID_Z, "%laneid": SR_LANEID, "%warpid": SR_WARPID,
    "%ntid.x": SR_NTID_X, "%ntid.y": SR_NTID_Y, "%ntid.z": SR_NTID_Z, "%nctaid.x": SR_NCTAID_X,
    "%nctaid.y": SR_NCTAID_Y, "%nctaid.z": SR_NCTAID_Z, "%nwarpid": SR_NWARPID, "%smid": SR_SMID,
    "%nsmid": SR_NSMID, "%gridid": SR_GRIDID, "%dynamic_smem_size": SR_DYN_SMEM,
    "%total_smem_size": SR_TOTAL_SMEM, "%clock": SR_CLOCK, "%clock64": SR_CLOCK64,
    "%globaltimer": SR_CLOCK, "%globaltimer_lo": SR_CLOCK, "%globaltimer_hi": SR_CLOCK,
    "%lanemask_eq": SR_LM_EQ, "%lanemask_lt": SR_LM_LT, "%lanemask_le": SR_LM_LE,
    "%lanemask_gt": SR_LM_GT, "%lanemask_ge": SR_LM_GE,
}

# wmma steps (AUX of OP_WMMA), and the element types its MMAs compile (AUX2 nibbles)
WM_LOAD, WM_STORE, WM_MMA = 0, 1, 2
E_F16, E_BF16, E_F32 = 1, 2, 3
# F table: fragment register ids, four groups of F_GROUP (ld/st: group 0; mma: d, a, b, c), then counts
F_GROUP = 8
F_COLS = 5 * F_GROUP

# engine status codes (ST_FALLBACK: a compiled step hands this one to the reference, host_steps.py)
ST_OK, ST_OOB, ST_MISALIGNED, ST_TRAP, ST_STACK, ST_HOST_FAULT, ST_FALLBACK = 0, 1, 2, 3, 4, 5, 6
