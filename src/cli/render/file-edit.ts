/** How a file-editing call changes one file, as far as its arguments and the file tell. */
export interface FileEdit {
  path: string;
  /** The file's text before the edit; null when it does not exist (or could not be read). */
  before: string | null;
  after: string;
}
