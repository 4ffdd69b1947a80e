/**
 * Extracted data as a tree of native <details>: collapsible with mouse and keyboard (Enter/Space
 * on a summary), announced as expandable by screen readers, and no state to keep.
 */
export function JsonTree({ value, label, open = true }: { value: unknown; label?: string; open?: boolean }) {
  return (
    <div class="json-tree">
      <JsonNode value={value} name={label ?? 'data'} open={open} depth={0} />
    </div>
  );
}

interface NodeProps {
  value: unknown;
  name: string;
  open: boolean;
  depth: number;
}

function JsonNode({ value, name, open, depth }: NodeProps) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value as Record<string, unknown>);
    const size = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      // Only the top levels start open, so a large result does not flood the page.
      <details open={open && depth < 2}>
        <summary>
          <span class="json-key">{name}</span> <span class="json-size">{size}</span>
        </summary>
        <ul>
          {entries.map(([key, item]) => (
            <li key={key}>
              <JsonNode value={item} name={key} open={open} depth={depth + 1} />
            </li>
          ))}
        </ul>
      </details>
    );
  }
  return (
    <span class="json-leaf">
      <span class="json-key">{name}</span>:{' '}
      <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
    </span>
  );
}
