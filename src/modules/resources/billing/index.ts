// billing (docs/ARCHITECTURE.md, "A module"): its public face.
export { InvoiceTemplateCreate, PriceCreate, ProductCreate, ProductUpdate, SubscriptionTemplateCreate } from './catalog.schemas.js';
export { createInvoiceTemplate, createPrice, createProduct, createSubscriptionTemplate, updateProduct } from './catalog.service.js';
export { createInvoice, invoiceName, markPaid, voidInvoice } from './invoices.service.js';
export { BillingWorker, runDueUntil } from './billing-worker.js';
export { type PaymentProcessor, sandboxProcessor } from './payment-processor.js';
export { default as paymentRoutes } from './payments.routes.js';
export { createSubscription } from './subscriptions.service.js';
export { catalogAdminRoutes, default as catalogRoutes } from './catalog.routes.js';
export { invoiceAdminRoutes, default as invoiceRoutes } from './invoices.routes.js';
export { default as subscriptionRoutes } from './subscriptions.routes.js';
