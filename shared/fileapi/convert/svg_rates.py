"""What resvg (resvg-py 0.5.0, resvg 0.48.1) spends per unit of work: the rates svg_cost predicts with.

CPU time per unit, measured in one process per case on the development machine (`python -m
bench.svg_limits rates` prints each case's time and peak memory beside the prediction); each rate is
the measured one rounded up. Pixels are
device pixels: after the output zoom and every transform.
"""

from __future__ import annotations

# The budgets an SVG must fit: CPU time a quarter of the 20 s deadline (Lambda's 1024 MB gives the
# Render function about 0.6 of a core), memory half the Render function's 1024 MB.
BUDGET_SECONDS = 5.0
BUDGET_BYTES = 512 * 1024 * 1024

ELEMENT_NS = 6_000  # each element drawn: 10,000 tiny rects 49 ms, 10,000 groups 58 ms
ELEMENT_BYTES = 800  # held for the whole render: 2^16 <use> copies of a rect held 150 MB (560 B each)
SEGMENT_NS = 1_000  # each path segment (parsing, flattening): 200,000 segments 0.23 s
FILL_NS = 0.5  # each pixel a shape's box covers: 1,000 canvas-sized rects 0.41 s at 1000x1000
STROKE_NS = 50  # each pixel of stroke length, stroke wider than 1 px: 34-43 ns
HAIRLINE_NS = 550  # each pixel of length of a stroke 1 px wide or less, drawn anti-aliased: 540 ns
HAIRLINE_BYTES = 70  # each pixel of hairline length: 3,000 curves of 1,340 px held 279 MB
CSS_TEST_NS = 60  # each style sheet selector against each element: 58 ns (descendant), 18 (simple)

LAYER_NS = 2  # each pixel of a layer (allocated, cleared): 25x-canvas opacity layers 3.6 ns/px in all
COMPOSITE_NS = 46  # each pixel a layer covers on its target (opacity, blend, isolation): 44-50 ns
CLIP_NS = 24  # clip-path, in addition: 68 ns/px in all
MASK_NS = 40  # mask, in addition, besides drawing its content: 82 ns/px in all
PATTERN_FILL_NS = 42  # each pixel filled with a pattern
IMAGE_DECODE_NS = 40  # each pixel of a raster image, decoded at each draw: PNG 30-37 ns, JPEG 20 ns
IMAGE_DRAW_NS = 310  # each pixel an image covers (bicubic resampling): 309 ns
NESTED_SVG_NS = 35  # each target pixel per SVG image (a pixmap the size of its target): 34.5 ns

TEXT_NS = 90_000  # each text chunk (a run between absolute x/y positions): 88 us
GLYPH_NS = 3_000  # each character: 100,000 in 1,000 texts 0.35 s
GLYPH_BYTES = 640  # each character's outline, held: 1,000,000 characters held 530 MB
CHUNK_CHAR_NS = 1.3  # times the square of a chunk's characters: 30,000 characters 1.12 s
CHUNK_SPAN_NS = 500  # times the square of a chunk's tspans: 2,000 tspans 1.93 s

# Filters, per pixel of the filter region. Each case below filtered a 1000x1000 rect with one primitive
# (the layer and its compositing, 21 ns/px, are charged as a layer); 30 chained offsets took 44 ns each.
FILTER_NS = 75  # each filter: its source copied and converted to linearRGB and back
PRIMITIVE_NS = 60  # a primitive not named below: color matrix 34, component transfer 48, tile 53...
PRIMITIVE_RATES = {
    "feGaussianBlur": 110,  # box blur, any deviation of 2 px or more: 55-108 ns
    "feDropShadow": 160,  # 157 ns
    "feComposite": 100,
    "feBlend": 110,
    "feSpecularLighting": 100,  # 91 ns
    "feOffset": 50,  # 44 ns
    "feFlood": 20,
    "feImage": 10,  # and what it draws
    "feTurbulence": 250,  # and each octave below
    "feMorphology": 25,  # and its window below
    "feConvolveMatrix": 45,  # and its kernel below
    "feMerge": 10,  # and its nodes below
}
IIR_BLUR_NS = 270  # a Gaussian blur under 2 px of deviation (an IIR filter): 265 ns
MERGE_NODE_NS = 50  # feMerge, each node: 100 nodes 47 ns each
OCTAVE_NS = 70  # feTurbulence, each octave: 65 ns (2,000 octaves on 50x50 took 0.32 s)
WINDOW_NS = 2.5  # feMorphology, each pixel of its window (2 radii by 2 radii): 2.4 ns
KERNEL_NS = 4  # feConvolveMatrix, each cell of its kernel: 3.7 ns
