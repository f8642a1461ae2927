// Compares the 16 words of one index chunk (IntegerSlotIndex, 64 bytes,
// 64-byte aligned) at once, which Swift's SIMD types do not compile to:
// bit i of the result is set when (words[i] & mask) == value. SSE2 on
// x86-64, NEON on 64-bit ARM, a plain loop elsewhere.
#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
static inline uint32_t evictionlab_chunk_match(const uint32_t *words, uint32_t mask, uint32_t value) {
  const __m128i m = _mm_set1_epi32((int)mask), v = _mm_set1_epi32((int)value);
  const __m128i *p = (const __m128i *)words;
  __m128i e0 = _mm_cmpeq_epi32(_mm_and_si128(_mm_load_si128(p + 0), m), v);
  __m128i e1 = _mm_cmpeq_epi32(_mm_and_si128(_mm_load_si128(p + 1), m), v);
  __m128i e2 = _mm_cmpeq_epi32(_mm_and_si128(_mm_load_si128(p + 2), m), v);
  __m128i e3 = _mm_cmpeq_epi32(_mm_and_si128(_mm_load_si128(p + 3), m), v);
  // Four 32-bit lanes to 16 bytes, each 0 or 0xFF, then one bit each.
  __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(e0, e1), _mm_packs_epi32(e2, e3));
  return (uint32_t)_mm_movemask_epi8(bytes);
}
#elif defined(__aarch64__)
#include <arm_neon.h>
static inline uint32_t evictionlab_chunk_match(const uint32_t *words, uint32_t mask, uint32_t value) {
  const uint32x4_t m = vdupq_n_u32(mask), v = vdupq_n_u32(value);
  uint32x4_t e0 = vceqq_u32(vandq_u32(vld1q_u32(words + 0), m), v);
  uint32x4_t e1 = vceqq_u32(vandq_u32(vld1q_u32(words + 4), m), v);
  uint32x4_t e2 = vceqq_u32(vandq_u32(vld1q_u32(words + 8), m), v);
  uint32x4_t e3 = vceqq_u32(vandq_u32(vld1q_u32(words + 12), m), v);
  uint16x8_t h0 = vcombine_u16(vmovn_u32(e0), vmovn_u32(e1));
  uint16x8_t h1 = vcombine_u16(vmovn_u32(e2), vmovn_u32(e3));
  uint8x16_t bytes = vcombine_u8(vmovn_u16(h0), vmovn_u16(h1));
  static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t bits = vandq_u8(bytes, vld1q_u8(weights));
  return (uint32_t)vaddv_u8(vget_low_u8(bits)) | ((uint32_t)vaddv_u8(vget_high_u8(bits)) << 8);
}
#else
static inline uint32_t evictionlab_chunk_match(const uint32_t *words, uint32_t mask, uint32_t value) {
  uint32_t bits = 0;
  for (int i = 0; i < 16; i++) bits |= (uint32_t)((words[i] & mask) == value) << i;
  return bits;
}
#endif

// A hint that the chunk at `address` is about to be written (an index
// growing places its keys a few ahead of the prefetches).
static inline void evictionlab_chunk_prefetch(const void *address) { __builtin_prefetch(address, 1, 3); }

// Asks Linux to back the 2 MiB-aligned part of a large, not yet touched
// allocation with huge pages (transparent huge pages in `madvise` mode, the
// default of many distributions). A policy's index, entries and sketch are
// read at random: at 500,000 objects each request's few lines are also a few
// TLB misses on 4 KiB pages, and in a virtual machine each of those is a
// walk of two page tables. A hint only: where the kernel says no, or on
// another system, nothing changes.
#include <stddef.h>
#if defined(__linux__)
#include <sys/mman.h>
static inline void evictionlab_advise_huge_pages(void *address, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  const uintptr_t start = ((uintptr_t)address + huge - 1) & ~(huge - 1);
  const uintptr_t end = ((uintptr_t)address + bytes) & ~(huge - 1);
  if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
  (void)address, (void)bytes;
#endif
}
#else
static inline void evictionlab_advise_huge_pages(void *address, size_t bytes) { (void)address, (void)bytes; }
#endif
