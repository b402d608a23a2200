/** Reads a fetch body until it ends or breaks; returns the text received and whether it broke. */
export async function readAll(res: Response): Promise<{ text: string; broke: boolean }> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, broke: false };
      text += dec.decode(value, { stream: true });
    }
  } catch {
    return { text, broke: true };
  }
}
