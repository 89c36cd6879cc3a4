// A minimal client for the Turn Zero Cloud actions endpoint.
// Every action is called as POST /api/v1/actions/<action> with a JSON body.

export interface TextAnswer {
  stamp: string;
  offset: number;
  total: number;
  next_offset: number | null;
  id: string;
  mime_type: string;
  text: string;
}

// callAction posts one request and returns the decoded answer, or throws
// the error the service answered.
export async function callAction<T>(origin: string, action: string, body: object, token?: string): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${origin}/api/v1/actions/${action}`, { method: "POST", headers, body: JSON.stringify(body) });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${action}: ${answer.error?.code ?? res.status}: ${answer.error?.message ?? ""}`);
  return answer as T;
}

// readAll reads a text to its end, following next_offset with the stamp.
export async function readAll(origin: string, action: string, body: object, token?: string): Promise<string> {
  let first = await callAction<TextAnswer>(origin, action, body, token);
  let text = first.text;
  let next = first.next_offset;
  while (next !== null) {
    const a: TextAnswer = await callAction<TextAnswer>(origin, action, { ...body, offset: next, stamp: first.stamp }, token);
    text += a.text;
    next = a.next_offset;
  }
  return text;
}
