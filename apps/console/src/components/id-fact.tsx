/** The id entry of a `facts` list: what a person copies into an API call or a support request. */
export function IdFact({ id }: { id: string }) {
  return (
    <div>
      <dt>Id</dt>
      <dd>
        <code>{id}</code>
      </dd>
    </div>
  );
}
