/**
 * A response body already written as JSON text. A large listing writes its text straight from
 * its typed arrays: building one object per point only for JSON.stringify to walk it again cost
 * more time and memory than the listing's own work (a page of 500 ads is 45,000 points).
 */
export class JsonText {
  constructor(readonly text: string) {}
}
