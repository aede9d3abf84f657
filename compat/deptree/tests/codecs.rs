//! Image codecs whose rayon use differs from a parallel iterator's: each
//! test says which pattern it exercises. Their results are checked
//! against the codec's serial path (or, where the build has none, against
//! the input and against runs on other pools), and their work against
//! locus's workers.
//!
//! - exr builds a `rayon_core::ThreadPool` of its own for every image it
//!   reads or writes, `spawn`s one job per block into it from the calling
//!   thread (not a worker), receives the results through a channel on that
//!   thread, and drops the pool when done.
//! - jpeg-decoder decodes the unfinished components of a progressive JPEG
//!   (a file cut after some of its scans) in an `in_place_scope` whose
//!   `spawn`s borrow pieces of the output, in whatever pool it is called
//!   from, and converts colours with `par_chunks_mut` cut to single lines.
//! - oxipng `spawn`s its trial compressions from the calling thread (a
//!   worker when it runs in a pool), spins on `yield_local` until every
//!   spawned job has started, then waits for their results in a channel:
//!   on a pool of one worker, only `yield_local` running the spawned jobs
//!   on the spinning worker itself lets it finish.
//!
//! exr and oxipng run none of the test's closures on the pool, so the
//! test binary counts, with its allocator, the bytes allocated on locus
//! workers: the blocks exr decompresses and the filtered rows oxipng
//! compresses are allocated by whoever does that work. The tests take one
//! lock, so that no other test's work is counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The global allocator of this test binary: the system's, counting the
/// bytes allocated on threads that are locus workers.
struct CountOnWorkers;

static ON_WORKERS: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// Set while a count is being taken on this thread, so that an
    /// allocation made by the count itself is not counted again.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count(bytes: usize) {
    COUNTING.with(|busy| {
        if busy.replace(true) {
            return;
        }
        // Reads a thread-local cell of locus's; it does not allocate.
        if locus::current_thread_index().is_some() {
            ON_WORKERS.fetch_add(bytes, Relaxed);
        }
        busy.set(false);
    });
}

// SAFETY: every method forwards to `System` with the arguments it was
// given, so the contract of `GlobalAlloc` is `System`'s; `count` only adds
// to an atomic.
unsafe impl GlobalAlloc for CountOnWorkers {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller keeps `alloc`'s contract, passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout`, as the caller
        // promises for this allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        // SAFETY: as in `dealloc`, with `realloc`'s contract on `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountOnWorkers = CountOnWorkers;

/// One test at a time (the counts are process-wide).
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` and returns its result with the bytes allocated on locus
/// workers meanwhile.
fn on_workers<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ON_WORKERS.load(Relaxed);
    let r = f();
    (r, ON_WORKERS.load(Relaxed) - before)
}

/// Asserts that two images' bytes are equal, naming the first that
/// differs (not printing megabytes).
fn assert_same(got: &[u8], want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}: byte {i} is {}, not {}", got[i], want[i]);
    }
}

/// Deterministic noise with runs (for run-length coders) in it.
fn noise(i: usize) -> u32 {
    let run = i / 5;
    (run as u32).wrapping_mul(2_654_435_761) ^ (i as u32 >> 3)
}

mod exr_tests {
    use super::*;
    use exr::block::reader::{ChunksReader, ParallelBlockDecompressor};
    use exr::prelude::*;

    type FlatImage = Image<Layers<AnyChannels<FlatSamples>>>;

    const WIDTH: usize = 200;
    const HEIGHT: usize = 120;

    /// Three channels of the three sample types, 10 bytes a pixel.
    fn image(encoding: Encoding) -> Image<Layer<AnyChannels<FlatSamples>>> {
        let n = WIDTH * HEIGHT;
        let h = (0..n).map(|i| f16::from_f32((noise(i) % 1000) as f32 / 8.0));
        let f = (0..n).map(|i| noise(i + 7) as f32 / 3.0);
        let u = (0..n).map(|i| noise(i + 11));
        let channels = AnyChannels::sort(SmallVec::from_vec(vec![
            AnyChannel::new("H", FlatSamples::F16(h.collect())),
            AnyChannel::new("F", FlatSamples::F32(f.collect())),
            AnyChannel::new("U", FlatSamples::U32(u.collect())),
        ]));
        Image::from_layer(Layer::new(
            (WIDTH, HEIGHT),
            LayerAttributes::named("deptree"),
            encoding,
            channels,
        ))
    }

    fn write(image: &Image<Layer<AnyChannels<FlatSamples>>>, parallel: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        let writer = image.write();
        let writer = if parallel {
            writer
        } else {
            writer.non_parallel()
        };
        writer.to_buffered(Cursor::new(&mut bytes)).unwrap();
        bytes
    }

    fn read(bytes: &[u8], parallel: bool) -> FlatImage {
        let reader = exr::prelude::read()
            .no_deep_data()
            .largest_resolution_level()
            .all_channels()
            .all_layers()
            .all_attributes();
        let reader = if parallel {
            reader
        } else {
            reader.non_parallel()
        };
        reader.from_buffered(Cursor::new(bytes)).unwrap()
    }

    const ENCODINGS: [Encoding; 3] = [
        // 16 lines a block, written in order: 8 blocks.
        Encoding {
            compression: Compression::ZIP16,
            blocks: Blocks::ScanLines,
            line_order: LineOrder::Increasing,
        },
        // One line a block: 120 jobs through each pool.
        Encoding {
            compression: Compression::ZIP1,
            blocks: Blocks::ScanLines,
            line_order: LineOrder::Increasing,
        },
        // Tiles written in the order their jobs finish: 28 blocks.
        Encoding {
            compression: Compression::RLE,
            blocks: Blocks::Tiles(Vec2(32, 32)),
            line_order: LineOrder::Unspecified,
        },
    ];

    /// exr's own pools (one built per image through the shim's builder,
    /// `spawn` from a thread outside them, results through a channel, the
    /// pool dropped at the end): what the parallel writer and reader
    /// produce is what the serial ones do.
    #[test]
    fn exr_writes_and_reads_on_pools_it_builds_as_it_does_serially() {
        let _one = serial();
        let raw = WIDTH * HEIGHT * 10;
        for encoding in ENCODINGS {
            let image = image(encoding.clone());
            let serial_bytes = write(&image, false);
            let (parallel_bytes, written_on_workers) = on_workers(|| write(&image, true));
            if encoding.line_order == LineOrder::Increasing {
                assert_same(&parallel_bytes, &serial_bytes, &format!("{encoding:?}"));
            }
            let serial_image = read(&serial_bytes, false);
            for bytes in [&serial_bytes, &parallel_bytes] {
                let (parallel_image, read_on_workers) = on_workers(|| read(bytes, true));
                assert!(
                    parallel_image == serial_image,
                    "{encoding:?}: images differ"
                );
                // Every block's pixels were decompressed on a worker.
                assert!(
                    read_on_workers >= raw,
                    "{encoding:?}: {read_on_workers} bytes allocated on locus workers, \
                     fewer than the {raw} bytes decompressed"
                );
            }
            let channels = &serial_image.layer_data[0].channel_data.list;
            let original = &image.layer_data.channel_data.list;
            for (got, want) in channels.iter().zip(original) {
                assert!(
                    got.sample_data == want.sample_data,
                    "{encoding:?}: samples differ"
                );
            }
            // Every block was converted and compressed on a worker.
            assert!(
                written_on_workers >= raw,
                "{encoding:?}: {written_on_workers} bytes allocated on locus workers, \
                 fewer than the {raw} bytes compressed"
            );
        }
    }

    /// A reader dropped after its first block, with the pool it was given
    /// still full of spawned jobs whose receiver is gone: the pool runs
    /// them, its workers exit, and the block read was the right one.
    #[test]
    fn exr_reader_dropped_early_lets_its_pool_finish_and_exit() {
        let _one = serial();
        let bytes = write(&image(ENCODINGS[1].clone()), false);
        let serial_blocks: Vec<_> = exr::block::read(Cursor::new(&bytes), false)
            .unwrap()
            .all_chunks(false)
            .unwrap()
            .sequential_decompressor(false)
            .map(Result::unwrap)
            .collect();
        for round in 0..5 {
            let exited = Arc::new(AtomicUsize::new(0));
            let chunks = exr::block::read(Cursor::new(&bytes), false)
                .unwrap()
                .all_chunks(false)
                .unwrap();
            let on_exit = Arc::clone(&exited);
            let mut blocks = ParallelBlockDecompressor::new_with_thread_pool(chunks, false, || {
                rayon_core::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .thread_name(|i| format!("tree-exr-{i}"))
                    .exit_handler(move |_| {
                        on_exit.fetch_add(1, Relaxed);
                    })
                    .build()
            })
            .unwrap();
            let first = blocks.next().unwrap().unwrap();
            assert!(serial_blocks.contains(&first), "round {round}");
            drop(blocks);
            let deadline = Instant::now() + Duration::from_secs(60);
            while exited.load(Relaxed) < 2 {
                assert!(
                    Instant::now() < deadline,
                    "round {round}: the dropped pool's workers did not exit within 60 s"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

mod jpeg_tests {
    use super::*;

    const WIDTH: usize = 256;
    const HEIGHT: usize = 200;

    /// Columns `x0..x0 + width` of an RGB test image.
    fn rgb(x0: usize, width: usize) -> Vec<u8> {
        (0..HEIGHT)
            .flat_map(|y| (x0..x0 + width).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                let n = (noise(y * WIDTH + x) % 24) as u8;
                [x as u8 ^ n, y as u8, (x + y) as u8 / 2 + n]
            })
            .collect()
    }

    /// Quality 100, 4:4:4 (no chroma subsampling).
    fn encode(x0: usize, width: usize, progressive: bool) -> Vec<u8> {
        let mut jpeg = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, 100);
        encoder.set_progressive(progressive);
        encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::F_1_1);
        let (w, h) = (width as u16, HEIGHT as u16);
        encoder
            .encode(&rgb(x0, width), w, h, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        jpeg
    }

    /// The JPEG cut after its first `scans` scans and closed with an end
    /// marker, as a decoder sees a progressive file still loading (a
    /// marker's 0xFF is never followed by 0xDA inside entropy-coded data).
    fn first_scans(jpeg: &[u8], scans: usize) -> Vec<u8> {
        let starts: Vec<usize> = (0..jpeg.len() - 1)
            .filter(|&i| jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA)
            .collect();
        let mut cut = jpeg[..starts.get(scans).copied().unwrap_or(jpeg.len() - 2)].to_vec();
        cut.extend_from_slice(&[0xFF, 0xD9]);
        cut
    }

    fn scan_count(jpeg: &[u8]) -> usize {
        jpeg.windows(2).filter(|w| w == &[0xFF, 0xDA]).count()
    }

    /// Decodes to RGB, or (`raw`) to the YCbCr samples the blocks decode
    /// to, without the colour conversion: that converts the last 8 pixels
    /// of a line with scalar code and the others with vector code, which
    /// round differently, so the halves below compare only without it.
    fn decode(jpeg: &[u8], raw: bool) -> Vec<u8> {
        let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(jpeg));
        if raw {
            decoder.set_color_transform(jpeg_decoder::ColorTransform::None);
        }
        let pixels = decoder.decode().unwrap();
        assert_eq!(decoder.info().unwrap().height as usize, HEIGHT);
        pixels
    }

    /// The raw decode of two JPEGs of 128 columns each (cut like the
    /// wide one), side by side: jpeg-decoder decodes an image that narrow
    /// with its serial worker (it picks the worker by the width), and with
    /// 4:4:4 sampling every 8x8 block decodes from its own coefficients,
    /// the same in the narrow files as in the wide one.
    fn serial_halves(halves: &[Vec<u8>; 2], scans: usize) -> Vec<u8> {
        let [left, right] = halves
            .each_ref()
            .map(|jpeg| decode(&first_scans(jpeg, scans), true));
        // Without the conversion a line holds its components one after
        // the other: Y of every pixel, then Cb, then Cr.
        let row = WIDTH / 2;
        left.chunks(row)
            .zip(right.chunks(row))
            .flat_map(|(l, r)| l.iter().chain(r).copied())
            .collect()
    }

    /// jpeg-decoder's two rayon paths against its serial one. A
    /// progressive file cut after some of its scans takes the
    /// `in_place_scope` path for its unfinished components (one `spawn`
    /// per row of 8x8 blocks, each writing into its own borrowed piece of
    /// the output); every image then takes the `par_chunks_mut` cut to
    /// single lines. Decoded on a pool of two workers, on a pool of one,
    /// and from a thread outside any pool (locus's global pool): the
    /// samples are those of the serial decode, and the whole file's
    /// colours are within a few levels of the pixels encoded (quality
    /// 100).
    #[test]
    fn jpeg_decoder_scopes_decode_as_its_serial_worker_does() {
        let _one = serial();
        let two = deptree::pool("tree-jpeg-");
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let jobs = |jpeg: &[u8]| {
            let before = two.stats().total().jobs_run;
            let decoded = two.install(|| decode(jpeg, true));
            (decoded, two.stats().total().jobs_run - before)
        };
        let encode_all = |progressive| {
            let whole = encode(0, WIDTH, progressive);
            let halves = [0, WIDTH / 2].map(|x0| encode(x0, WIDTH / 2, progressive));
            (whole, halves)
        };
        let (progressive, progressive_halves) = encode_all(true);
        let scans = scan_count(&progressive);
        assert!(scans > 2, "{scans} scans");
        let (_, jobs_whole) = jobs(&progressive);
        // One job per line of the colour conversion, about.
        assert!(jobs_whole >= HEIGHT as u64 / 2, "{jobs_whole} jobs");
        // The first scan (DC only), the second, one halfway, the last but
        // one and all of them.
        let cuts: std::collections::BTreeSet<usize> = [1, 2, scans / 2, scans - 1, scans].into();
        for k in cuts {
            let what = format!("progressive, {k} of {scans} scans");
            let jpeg = first_scans(&progressive, k);
            let want = serial_halves(&progressive_halves, k);
            let (on_two, jobs_cut) = jobs(&jpeg);
            assert_same(&on_two, &want, &format!("{what}, two workers"));
            let on_one = one.install(|| decode(&jpeg, true));
            assert_same(&on_one, &want, &format!("{what}, one worker"));
            assert_same(&decode(&jpeg, true), &want, &format!("{what}, global pool"));
            if k < scans {
                // At least one unfinished component: a spawn per block row.
                let rows = (HEIGHT / 8) as u64;
                assert!(
                    jobs_cut >= jobs_whole + rows,
                    "{what}: {jobs_cut} jobs, the whole file's {jobs_whole} and {rows} spawns expected"
                );
            }
        }
        let (baseline, baseline_halves) = encode_all(false);
        assert_same(
            &two.install(|| decode(&baseline, true)),
            &serial_halves(&baseline_halves, 1),
            "baseline",
        );
        let original = rgb(0, WIDTH);
        for jpeg in [&progressive, &baseline] {
            let on_two = two.install(|| decode(jpeg, false));
            assert_same(
                &one.install(|| decode(jpeg, false)),
                &on_two,
                "RGB, one worker",
            );
            assert_same(&decode(jpeg, false), &on_two, "RGB, global pool");
            let worst = on_two
                .iter()
                .zip(&original)
                .map(|(a, b)| a.abs_diff(*b))
                .max();
            assert!(worst <= Some(8), "a pixel is {worst:?} levels off");
        }
    }
}

mod oxipng_tests {
    use super::*;
    use rayon::prelude::*;

    const WIDTH: u32 = 96;
    const HEIGHT: u32 = 64;

    /// Opaque RGBA with more than 256 colours: oxipng tries the image
    /// without its alpha channel as well as with it, one spawned job each.
    fn rgba() -> Vec<u8> {
        (0..(WIDTH * HEIGHT) as usize)
            .flat_map(|i| {
                let (x, y) = (i % WIDTH as usize, i / WIDTH as usize);
                [(x * 2) as u8, (y * 3) as u8, (noise(i) % 8) as u8 * 16, 255]
            })
            .collect()
    }

    fn optimize() -> Vec<u8> {
        let raw = oxipng::RawImage::new(
            WIDTH,
            HEIGHT,
            oxipng::ColorType::RGBA,
            oxipng::BitDepth::Eight,
            rgba(),
        )
        .unwrap();
        raw.create_optimized_png(&oxipng::Options::from_preset(2))
            .unwrap()
    }

    /// The PNG's pixels as 8-bit RGBA.
    fn pixels(png_bytes: &[u8]) -> Vec<u8> {
        let mut decoder = png::Decoder::new(Cursor::new(png_bytes));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let px = &buf[..info.buffer_size()];
        match info.color_type {
            png::ColorType::Rgba => px.to_vec(),
            png::ColorType::Rgb => px.chunks(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            other => panic!("unexpected colour type {other:?}"),
        }
    }

    /// oxipng has no serial path in a build with its `parallel` feature:
    /// its output on a pool of two workers, on a pool of one (where its
    /// spin on `yield_local` must run the spawned trials itself) and from
    /// a thread outside any pool (locus's global pool, the trials
    /// allocating there) is the same file, and that file holds the
    /// original pixels.
    #[test]
    fn oxipng_spawns_and_yields_to_the_same_png_on_every_pool() {
        let _one = serial();
        let two = deptree::pool("tree-png-");
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (outside, on_workers) = on_workers(optimize);
        let raw = (WIDTH * HEIGHT * 3) as usize;
        assert!(
            on_workers >= raw,
            "{on_workers} bytes allocated on locus workers, less than one filtered image"
        );
        assert_same(&pixels(&outside), &rgba(), "the PNG's pixels");
        for round in 0..3 {
            let what = format!("round {round}");
            assert_same(
                &two.install(optimize),
                &outside,
                &format!("{what}, two workers"),
            );
            assert_same(
                &one.install(optimize),
                &outside,
                &format!("{what}, one worker"),
            );
        }
        // oxipng's command line optimizes its files in a parallel
        // iterator: every worker may spin in `yield_local`, or wait for its
        // trials in a channel, while its own trials are stolen.
        for pool in [&two, &one] {
            let files: Vec<Vec<u8>> =
                pool.install(|| (0..6).into_par_iter().map(|_| optimize()).collect());
            assert!(
                files.iter().all(|f| *f == outside),
                "{} workers",
                pool.current_num_threads()
            );
        }
    }
}
