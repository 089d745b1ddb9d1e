// The order in which the reader of words reads Dad's photos
// (wordsreader.ts). What Dad has just done comes first: a photo he has
// just added, or one that has just come from another computer, is read
// before the photos that were in Spark already (the backlog of a library
// from before words were read, or of a family engine). Without this, a new
// photo waited behind every older one the window had listed: 58 s in the
// browser tests, behind 20-odd photos of earlier tests.

/** A photo to read: its moment's id and the address of its small copy. */
export interface ToRead {
  readonly id: string;
  readonly url: string;
}

/** ReadQueue holds the photos waiting to be read, each once. */
export class ReadQueue {
  /** news: photos that just arrived, the newest first. */
  private news: ToRead[] = [];
  /** backlog: photos listed on a screen, in the order listed. */
  private backlog: ToRead[] = [];

  /** arrived queues a photo that has just been added or changed, ahead of
   * everything that waits; if it waited already, it moves to the front. */
  arrived(p: ToRead): void {
    this.drop(p.id);
    this.news.unshift(p);
  }

  /** listed queues a photo a screen listed, behind what waits already;
   * one that waits already keeps its place. */
  listed(p: ToRead): void {
    if (this.has(p.id)) return;
    this.backlog.push(p);
  }

  /** next takes the photo to read now, or undefined when none waits. */
  next(): ToRead | undefined {
    return this.news.shift() ?? this.backlog.shift();
  }

  /** clear forgets everything that waits. */
  clear(): void {
    this.news = [];
    this.backlog = [];
  }

  get length(): number {
    return this.news.length + this.backlog.length;
  }

  /** has says whether the photo of the moment id waits. */
  has(id: string): boolean {
    return this.news.some((p) => p.id === id) || this.backlog.some((p) => p.id === id);
  }

  private drop(id: string): void {
    this.news = this.news.filter((p) => p.id !== id);
    this.backlog = this.backlog.filter((p) => p.id !== id);
  }
}
