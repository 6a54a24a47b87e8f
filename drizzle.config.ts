import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/db/schema*.ts and committed; wrangler applies them to D1.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema*.ts",
  out: "./migrations",
});
