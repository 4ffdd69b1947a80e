export { deliveryRole, startDelivery, type StartDeliveryOptions } from './start-delivery';
