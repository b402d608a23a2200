// Which feedback rows count as evidence of a model's quality (routing, auto-ab): one score per
// request, the user's when there is one, else the judge's. A request can carry both (the judge
// sampled it, the user rated it); counting both doubled its weight, and at a high judge sample
// rate the judge outvoted the users on the very answers they had rated.

/** A condition on a feedback row aliased `alias`: true for the rows that count. */
export function countedFeedback(alias: string): string {
  return `(${alias}.source = 'user' or not exists (select 1 from feedback u where u.tenant_id = ${alias}.tenant_id and u.request_id = ${alias}.request_id and u.source = 'user'))`;
}

/** The other source of a score: the one whose score a request may also carry. */
export function otherSource(source: 'user' | 'judge'): 'user' | 'judge' {
  return source === 'user' ? 'judge' : 'user';
}
