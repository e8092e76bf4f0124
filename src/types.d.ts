// Text modules bundled through wrangler's [[rules]] (prompts and SQL migrations).
declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*.sql" {
  const text: string;
  export default text;
}
