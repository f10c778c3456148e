// Errors with a message for the user, and where the problem is.
export class SiteError extends Error {
  constructor(message, { file, line } = {}) {
    super(file ? `${file}${line ? `:${line}` : ''}: ${message}` : message);
    this.name = 'SiteError';
    this.file = file;
    this.line = line;
  }
}
