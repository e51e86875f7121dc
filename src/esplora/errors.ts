/** An Esplora error answer: electrs's HttpError, a status and a plain-text body. */
export class EsploraError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (message: string): EsploraError => new EsploraError(404, message);
export const badRequest = (message: string): EsploraError => new EsploraError(400, message);
