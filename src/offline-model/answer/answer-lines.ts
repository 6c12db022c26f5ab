/**
 * An answer's lines, a fenced code block counted as one line: the units an answer is composed of,
 * cited and filtered one by one.
 */
export function splitAnswerLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string[] | undefined;
  for (const line of text.split('\n')) {
    if (fence) {
      fence.push(line);
      if (/^```/.test(line)) {
        lines.push(fence.join('\n'));
        fence = undefined;
      }
    } else if (/^```/.test(line)) fence = [line];
    else lines.push(line);
  }
  if (fence) lines.push(fence.join('\n'));
  return lines;
}
