// Reads through uvec4 texel views of a window (four 32-bit words per texel): the *_texel variants'
// reads, since llvmpipe fetches a texel for all lanes of a vector at once, where it loads a storage
// buffer lane by lane behind a branch each.
#ifndef EMBER_TEXELS_GLSL
#define EMBER_TEXELS_GLSL

// The 32-bit word i.
uint word_from_texels(utextureBuffer texels, uint i) { return texelFetch(texels, int(i >> 2))[i & 3u]; }
// Float32 element i.
float float_from_texels(utextureBuffer texels, uint i) { return uintBitsToFloat(word_from_texels(texels, i)); }
// The 32-bit words i and i + 1 (i even): half a texel.
uvec2 pair_from_texels(utextureBuffer texels, uint i) {
  const uvec4 t = texelFetch(texels, int(i >> 2));
  return (i & 2u) != 0u ? t.zw : t.xy;
}

#endif
