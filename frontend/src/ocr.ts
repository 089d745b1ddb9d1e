// The reader of words in photos (issue 37): tesseract.js in a Web Worker,
// with its worker, its engine (WASM) and the trained data shipped inside
// Spark under ocr/ (scripts/ocr-assets.mjs copies them from node_modules
// into public/ocr/, which the build copies into dist/): nothing is fetched
// from the network, and a photo is read only from this page's own origin.
//
//   const reader = createReader();
//   const { text } = await reader.read(blob);   // 'eng' by default
//   reader.stop();                               // e.g. when the window closes
//
// One photo at a time (a queue); the worker starts on the first read and
// is let go after idleMs without work (30 s), so its memory goes back; a
// read after that starts it again (about 1-2 s). See ocrlane.ts.
import { createWorker, OEM, PSM, type ImageLike, type Worker } from 'tesseract.js';
import { better, confidentText, createLane, explain, isLangCode, ReadError, wantsSecondLook, type Timers } from './ocrlane.js';

export { confidentText, createLane, minConfidence, ReadError, StoppedError, tidyText, type Lane, type LaneOptions, type ReadErrorKind, type Timers } from './ocrlane.js';

/** What read() accepts: a photo's bytes (JPEG, PNG, WebP, BMP, TIFF), a
 * canvas, a decoded bitmap, or the address of a photo of this origin
 * (relative to the page, or absolute; data: and blob: too). */
export type ReadInput = Blob | HTMLCanvasElement | ImageBitmap | string;

export interface Reading {
  /** text: the words read with confidence (confidentText), line by line,
   * tidied. Empty when the photo has no words, or none the reader was
   * sure of. */
  text: string;
  /** dropped: the words read with too little confidence, left out. */
  dropped: number;
  /** lang: the language code it was read in. */
  lang: string;
}

export interface ReaderOptions {
  /** base: the address that ocr/ is under; the page's own by default
   * (document.baseURI), so the built app's ocr/ folder. */
  base?: string;
  /** idleMs: the worker is let go after this long without work (30 s). */
  idleMs?: number;
  /** simd: use the engine built with SIMD; found out by default. */
  simd?: boolean;
  /** startMs: a worker not ready after this long is given up (60 s): its
   * data was damaged, which tesseract.js answers with no answer at all. */
  startMs?: number;
  /** timers: for tests. */
  timers?: Timers;
}

export interface Reader {
  /** read reads the words in image in lang ('eng'); it waits for the reads
   * asked before it. Rejects with a ReadError (or a StoppedError). */
  read(image: ReadInput, lang?: string): Promise<Reading>;
  /** stop lets the worker go now; reads waiting or running reject with a
   * StoppedError. A read after it starts the worker again. */
  stop(): Promise<void>;
  /** busy: reads queued or running. */
  readonly busy: number;
  /** started: the worker is held (starting, reading or idle). */
  readonly started: boolean;
}

export const defaultIdleMs = 30_000;

// The smallest module with a SIMD instruction (v128.const; i32x4.extract),
// as wasm-feature-detect's test: valid only where WASM SIMD is.
const simdProbe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** hasSimd: this web view runs WASM with SIMD (WebKitGTK 2.50 does). */
export function hasSimd(): boolean {
  try {
    return WebAssembly.validate(simdProbe);
  } catch {
    return false;
  }
}

/** ocrPaths are the shipped files' addresses under base. The core is named
 * as a file, not a folder: given a folder, tesseract.js would pick the
 * relaxed-SIMD build where the web view has it, which is not shipped. */
export function ocrPaths(base: string, simd: boolean): { workerPath: string; corePath: string; langPath: string } {
  const at = (p: string) => new URL(p, base).href;
  return {
    workerPath: at('ocr/worker.min.js'),
    corePath: at(simd ? 'ocr/core/tesseract-core-simd-lstm.wasm.js' : 'ocr/core/tesseract-core-lstm.wasm.js'),
    // The worker asks for `${langPath}/${lang}.traineddata.gz`.
    langPath: at('ocr/lang'),
  };
}

/** languages: the codes of the languages shipped (ocr/lang/languages.json). */
export async function languages(base: string = document.baseURI): Promise<string[]> {
  const missing = 'The list of languages the reader of words knows is missing from this build of Spark.';
  let list: unknown;
  try {
    const r = await fetch(new URL('ocr/lang/languages.json', base));
    if (!r.ok) throw new Error(`${r.status}`);
    list = await r.json();
  } catch (err) {
    throw new ReadError('start', missing, err);
  }
  return Array.isArray(list) ? list.filter((c): c is string => typeof c === 'string' && isLangCode(c)) : [];
}

interface Held {
  worker: Worker;
  lang: string;
}

export function createReader(opts: ReaderOptions = {}): Reader {
  const base = opts.base ?? document.baseURI;
  const paths = ocrPaths(base, opts.simd ?? hasSimd());
  const origin = new URL(base).origin;
  const startMs = opts.startMs ?? 60_000;
  // The worker starts in the language of the read that starts it; a read
  // in another one reloads it (reinitialize).
  let want = 'eng';

  // The languages shipped, asked once. A language that is not would never
  // answer: tesseract.js leaves a worker whose data did not load waiting.
  let shipped: Promise<string[]> | null = null;
  async function isShipped(lang: string): Promise<void> {
    shipped ??= languages(base).catch((err: unknown) => {
      shipped = null;
      throw err;
    });
    if (!(await shipped).includes(lang)) throw new ReadError('lang', `No words data for the language "${lang}" is in this build of Spark.`);
  }

  // tesseract's thresholding_method: 0 is Otsu's one threshold for the
  // whole picture (its default), 2 Sauvola's local one.
  const globalThreshold = '0';
  const localThreshold = '2';
  // What is asked of tesseract: the words with their confidences.
  const blocksOnly = { text: false, blocks: true };

  const lane = createLane<Held>({
    idleMs: opts.idleMs ?? defaultIdleMs,
    timers: opts.timers,
    async start() {
      const lang = want;
      const made = createWorker(lang, OEM.LSTM_ONLY, {
        ...paths,
        gzip: true,
        // The worker is loaded by its address (a blob: worker would need a
        // wider content policy), and the data is not kept in IndexedDB: it
        // is on this computer already.
        workerBlobURL: false,
        cacheMethod: 'none',
        logger: () => undefined,
        errorHandler: () => undefined,
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ReadError('start', 'The reader of words did not start in time. Try again, or reinstall Spark.')), startMs);
      });
      try {
        const worker = await Promise.race([made, late]);
        // tesseract.js' default is one block (PSM.SINGLE_BLOCK); each
        // photo is first looked at as the CLI does (read, below).
        await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
        return { worker, lang };
      } catch (err) {
        // One that comes after all is let go.
        made.then((w) => w.terminate(), () => undefined).catch(() => undefined);
        throw explain(err, 'start', lang);
      } finally {
        clearTimeout(timer);
      }
    },
    stop: (h) => h.worker.terminate(),
    // A photo that can't be fetched or opened says nothing of the worker;
    // after any other failure, the next read starts a fresh one.
    keep: (err) => err instanceof ReadError && err.kind === 'image',
  });

  /** where: the address of a photo to read, if it is of this origin. */
  function where(image: string): URL {
    let url: URL;
    try {
      url = new URL(image, base);
    } catch {
      throw new ReadError('image', `"${image}" is not the address of a photo.`);
    }
    const local = url.protocol === 'data:' || url.protocol === 'blob:' || url.origin === origin;
    if (!local) throw new ReadError('image', `Only photos Spark holds itself are read; ${url.origin} is elsewhere.`);
    return url;
  }

  /** bytes: what tesseract.js is given of a photo. Run in the lane, so
   * that one photo at a time is fetched or drawn. A photo fetched is given
   * as its bytes, not a Blob: a Blob is registered with WebKit's network
   * process and read again through a FileReader at each of the two or
   * three looks, which left the window's network process 0.9 MB larger
   * once the words were read (docs/WORDS.md). */
  async function bytes(image: URL | Blob | HTMLCanvasElement | ImageBitmap): Promise<ImageLike> {
    if (image instanceof URL) {
      let r: Response;
      try {
        r = await fetch(image);
      } catch (err) {
        throw new ReadError('read', 'The photo to read could not be fetched from Spark. Try again.', err);
      }
      if (!r.ok) throw new ReadError(r.status === 404 ? 'image' : 'read', `The photo to read could not be fetched from Spark (${r.status}).`);
      // tesseract.js reads typed arrays as it reads Node's Buffer (its
      // loadImage: new Uint8Array(data)); its types name only Buffer.
      return new Uint8Array(await r.arrayBuffer()) as unknown as ImageLike;
    }
    if (image instanceof Blob || image instanceof HTMLCanvasElement) return image;
    // tesseract.js takes no bitmap: drawn on a canvas, which it sends as PNG.
    const c = document.createElement('canvas');
    c.width = image.width;
    c.height = image.height;
    const g = c.getContext('2d');
    if (!g) throw new ReadError('read', 'The photo could not be drawn to read it. Try again.');
    g.drawImage(image, 0, 0);
    return c;
  }

  // Reads asked and not yet answered, those still being prepared included.
  let busy = 0;

  async function read(image: ReadInput, lang: string): Promise<Reading> {
    // What can be refused without the worker is refused before the queue:
    // a language not shipped, an address elsewhere.
    if (!isLangCode(lang)) throw new ReadError('lang', `"${lang}" is not a language code such as "eng".`);
    const photo = typeof image === 'string' ? where(image) : image;
    await isShipped(lang);
    want = lang;
    return lane.run(async (h) => {
      const input = await bytes(photo);
      if (h.lang !== lang) {
        try {
          await h.worker.reinitialize(lang, OEM.LSTM_ONLY);
          await h.worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
          h.lang = lang;
        } catch (err) {
          throw explain(err, 'start', lang);
        }
      }
      try {
        // The words with their confidences: what the reader is not sure
        // of is left out (confidentText), not shown as fact. A first look
        // only where tesseract's layout analysis finds text (PSM.AUTO, the
        // tesseract CLI's own mode): a photo with no text in it is done in
        // a fifth of a second, where reading it whole as one block took 3
        // to 21 s (docs/WORDS.md).
        const found = confidentText((await h.worker.recognize(input, {}, blocksOnly)).data.blocks);
        if (found.text === '') return { ...found, lang };
        // Text: read as one block too, which reads letters and labels
        // better, and keep the better of the readings.
        await h.worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
        try {
          const r = await h.worker.recognize(input, {}, blocksOnly);
          let first = confidentText(r.data.blocks);
          if (wantsSecondLook(first, r.data.confidence)) {
            // Much left out: a second look with a local threshold, and
            // the better of the two (a shadow across a letter).
            await h.worker.setParameters({ thresholding_method: localThreshold });
            try {
              const again = await h.worker.recognize(input, {}, blocksOnly);
              first = better(first, confidentText(again.data.blocks));
            } finally {
              await h.worker.setParameters({ thresholding_method: globalThreshold });
            }
          }
          return { ...better(first, found), lang };
        } finally {
          await h.worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
        }
      } catch (err) {
        throw explain(err, 'read', lang);
      }
    }).catch((err: unknown) => {
      // Anything else (a photo's bytes cut short) in words too.
      throw explain(err, 'read', lang);
    });
  }

  return {
    async read(image: ReadInput, lang = 'eng'): Promise<Reading> {
      busy++;
      try {
        return await read(image, lang);
      } finally {
        busy--;
      }
    },
    stop: () => lane.stop(),
    get busy() {
      return busy;
    },
    get started() {
      return lane.started;
    },
  };
}
