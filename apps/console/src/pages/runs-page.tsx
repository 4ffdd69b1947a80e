import { RunsList } from '../components/runs-list';

export function RunsPage() {
  return (
    <>
      <h1>Runs</h1>
      <RunsList />
    </>
  );
}
