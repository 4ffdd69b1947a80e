/** A status in words and colour; the words carry the meaning, the colour only helps scanning. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
