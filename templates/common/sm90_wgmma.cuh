/* The wgmma instruction of sm90_gemm for its BLOCK_N and operand types, as inline PTX: the
 * accumulator type, the instruction kind and the operand lists for every N from 8 to 256.
 * Included by templates/sm90_gemm.cuh after its configuration (it reads SM90_OP_A_TYPE and
 * SM90_OP_B_TYPE, the types of wgmma's A and B operands, W8A8_BLOCK_N, SM90_INT8 and
 * SM90_ACC). Prefix: sm90_. */
#ifndef W8A8_SM90_WGMMA_CUH
#define W8A8_SM90_WGMMA_CUH

/* ---- the wgmma instruction for this BLOCK_N ---------------------------------------------
 * Operands: %0 scale-d (0: overwrite, else accumulate), %1 A descriptor, %2 B descriptor,
 * %3… the BLOCK_N/2 accumulators. SM90_L<N> lists the accumulator operands, SM90_O<N>(d) binds
 * them; both grow by 4 registers per 8 columns. */
#if SM90_INT8
typedef int sm90_acc_t;
#define SM90_CN "+r"
#define SM90_KIND ".s32.s8.s8"
#define SM90_IMM ""
#else
typedef float sm90_acc_t;
#define SM90_CN "+f"
#if SM90_OP_A_TYPE == W8A8_T_E4M3 && SM90_OP_B_TYPE == W8A8_T_E4M3
#define SM90_KIND ".f32.e4m3.e4m3"
#elif SM90_OP_A_TYPE == W8A8_T_E4M3
#define SM90_KIND ".f32.e4m3.e5m2"
#elif SM90_OP_B_TYPE == W8A8_T_E4M3
#define SM90_KIND ".f32.e5m2.e4m3"
#else
#define SM90_KIND ".f32.e5m2.e5m2"
#endif
#define SM90_IMM ", 1, 1"
#endif
#define SM90_F4(d, i) SM90_CN(d[(i)]), SM90_CN(d[(i) + 1]), SM90_CN(d[(i) + 2]), SM90_CN(d[(i) + 3])
#define SM90_STR2(x) #x
#define SM90_STR(x) SM90_STR2(x)
#define SM90_CAT2(a, b) a##b
#define SM90_CAT(a, b) SM90_CAT2(a, b)
#define SM90_L8 "%3,%4,%5,%6"
#define SM90_L16 SM90_L8 ",%7,%8,%9,%10"
#define SM90_L24 SM90_L16 ",%11,%12,%13,%14"
#define SM90_L32 SM90_L24 ",%15,%16,%17,%18"
#define SM90_L40 SM90_L32 ",%19,%20,%21,%22"
#define SM90_L48 SM90_L40 ",%23,%24,%25,%26"
#define SM90_L56 SM90_L48 ",%27,%28,%29,%30"
#define SM90_L64 SM90_L56 ",%31,%32,%33,%34"
#define SM90_L72 SM90_L64 ",%35,%36,%37,%38"
#define SM90_L80 SM90_L72 ",%39,%40,%41,%42"
#define SM90_L88 SM90_L80 ",%43,%44,%45,%46"
#define SM90_L96 SM90_L88 ",%47,%48,%49,%50"
#define SM90_L104 SM90_L96 ",%51,%52,%53,%54"
#define SM90_L112 SM90_L104 ",%55,%56,%57,%58"
#define SM90_L120 SM90_L112 ",%59,%60,%61,%62"
#define SM90_L128 SM90_L120 ",%63,%64,%65,%66"
#define SM90_L136 SM90_L128 ",%67,%68,%69,%70"
#define SM90_L144 SM90_L136 ",%71,%72,%73,%74"
#define SM90_L152 SM90_L144 ",%75,%76,%77,%78"
#define SM90_L160 SM90_L152 ",%79,%80,%81,%82"
#define SM90_L168 SM90_L160 ",%83,%84,%85,%86"
#define SM90_L176 SM90_L168 ",%87,%88,%89,%90"
#define SM90_L184 SM90_L176 ",%91,%92,%93,%94"
#define SM90_L192 SM90_L184 ",%95,%96,%97,%98"
#define SM90_L200 SM90_L192 ",%99,%100,%101,%102"
#define SM90_L208 SM90_L200 ",%103,%104,%105,%106"
#define SM90_L216 SM90_L208 ",%107,%108,%109,%110"
#define SM90_L224 SM90_L216 ",%111,%112,%113,%114"
#define SM90_L232 SM90_L224 ",%115,%116,%117,%118"
#define SM90_L240 SM90_L232 ",%119,%120,%121,%122"
#define SM90_L248 SM90_L240 ",%123,%124,%125,%126"
#define SM90_L256 SM90_L248 ",%127,%128,%129,%130"
#define SM90_O8(d) SM90_F4(d, 0)
#define SM90_O16(d) SM90_O8(d), SM90_F4(d, 4)
#define SM90_O24(d) SM90_O16(d), SM90_F4(d, 8)
#define SM90_O32(d) SM90_O24(d), SM90_F4(d, 12)
#define SM90_O40(d) SM90_O32(d), SM90_F4(d, 16)
#define SM90_O48(d) SM90_O40(d), SM90_F4(d, 20)
#define SM90_O56(d) SM90_O48(d), SM90_F4(d, 24)
#define SM90_O64(d) SM90_O56(d), SM90_F4(d, 28)
#define SM90_O72(d) SM90_O64(d), SM90_F4(d, 32)
#define SM90_O80(d) SM90_O72(d), SM90_F4(d, 36)
#define SM90_O88(d) SM90_O80(d), SM90_F4(d, 40)
#define SM90_O96(d) SM90_O88(d), SM90_F4(d, 44)
#define SM90_O104(d) SM90_O96(d), SM90_F4(d, 48)
#define SM90_O112(d) SM90_O104(d), SM90_F4(d, 52)
#define SM90_O120(d) SM90_O112(d), SM90_F4(d, 56)
#define SM90_O128(d) SM90_O120(d), SM90_F4(d, 60)
#define SM90_O136(d) SM90_O128(d), SM90_F4(d, 64)
#define SM90_O144(d) SM90_O136(d), SM90_F4(d, 68)
#define SM90_O152(d) SM90_O144(d), SM90_F4(d, 72)
#define SM90_O160(d) SM90_O152(d), SM90_F4(d, 76)
#define SM90_O168(d) SM90_O160(d), SM90_F4(d, 80)
#define SM90_O176(d) SM90_O168(d), SM90_F4(d, 84)
#define SM90_O184(d) SM90_O176(d), SM90_F4(d, 88)
#define SM90_O192(d) SM90_O184(d), SM90_F4(d, 92)
#define SM90_O200(d) SM90_O192(d), SM90_F4(d, 96)
#define SM90_O208(d) SM90_O200(d), SM90_F4(d, 100)
#define SM90_O216(d) SM90_O208(d), SM90_F4(d, 104)
#define SM90_O224(d) SM90_O216(d), SM90_F4(d, 108)
#define SM90_O232(d) SM90_O224(d), SM90_F4(d, 112)
#define SM90_O240(d) SM90_O232(d), SM90_F4(d, 116)
#define SM90_O248(d) SM90_O240(d), SM90_F4(d, 120)
#define SM90_O256(d) SM90_O248(d), SM90_F4(d, 124)

#define SM90_LIST SM90_CAT(SM90_L, W8A8_BLOCK_N)
#define SM90_OPS(d) SM90_CAT(SM90_O, W8A8_BLOCK_N)(d)

/* acc (+)= A(64×32, at desc_a) · B(BLOCK_N×32, at desc_b)ᵀ for one warpgroup. */
__device__ __forceinline__ void sm90_wgmma(sm90_acc_t (&d)[SM90_ACC], sm90_u64 desc_a,
                                           sm90_u64 desc_b, int accumulate)
{
    asm volatile("{ .reg .pred p;\n"
                 "  setp.ne.b32 p, %0, 0;\n"
                 "  wgmma.mma_async.sync.aligned.m64n" SM90_STR(W8A8_BLOCK_N) "k32" SM90_KIND
                 " {" SM90_LIST "}, %1, %2, p" SM90_IMM ";\n}"
                 : "+r"(accumulate), "+l"(desc_a), "+l"(desc_b), SM90_OPS(d)
                 :
                 : "memory");
}

#endif
