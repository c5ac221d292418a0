/** The console's providers and routes; areas add their pages in app/routes.tsx. */
export function App() {
  return <div>Atrium</div>;
}
