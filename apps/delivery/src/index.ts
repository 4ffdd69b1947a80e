export { startDelivery, type StartDeliveryOptions, type DeliveryRole } from './start-delivery';
export { enqueueDelivery, deliveryJobId } from './delivery-jobs';
