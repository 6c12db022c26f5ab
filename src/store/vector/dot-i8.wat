;; Int8 dot-product kernel for the in-memory vector index (WebAssembly SIMD).
;; scores[i] = sum_j rows[i*dim + j] * query[j]   (rows: int8, query: int16, scores: int32)
;; `dim` must be a multiple of 16. Regenerate dot-i8-wasm.ts with: node scripts/build-wasm.mjs
(module
  (memory (export "memory") 1)
  (func (export "dotI8") (param $rows i32) (param $n i32) (param $dim i32) (param $query i32) (param $out i32)
    (local $i i32) (local $j i32) (local $row i32) (local $acc v128) (local $v v128)
    (local.set $row (local.get $rows))
    (block $done
      (loop $outer
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $v (v128.load (i32.add (local.get $row) (local.get $j))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s
                (i16x8.extend_low_i8x16_s (local.get $v))
                (v128.load (i32.add (local.get $query) (i32.shl (local.get $j) (i32.const 1)))))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s
                (i16x8.extend_high_i8x16_s (local.get $v))
                (v128.load (i32.add (local.get $query) (i32.add (i32.shl (local.get $j) (i32.const 1)) (i32.const 16)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $dim))))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $dim)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer))))
)
